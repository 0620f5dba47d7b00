/**
 * Errors point at the user's line: through the real runner, a failing wait, a
 * missing link, a missing code and an unexpected message each fail the test
 * with a stack whose top frame is the spec's call, and each wait's report step
 * carries the spec's file and line.
 */
import { expect } from '@playwright/test';
import { resultOf, runInline, smtpEnv, test } from './harness.ts';

test.describe.configure({ mode: 'parallel' });

/** The 1-based line of the first line of `text` that contains `marker`. */
function lineOf(text: string, marker: string): number {
  const index = text.split('\n').findIndex((line) => line.includes(marker));
  if (index < 0) throw new Error(`no line with ${marker}`);
  return index + 1;
}

/** What the inline run's reporter records of one test: its errors and its steps, as the runner gives them to every reporter. */
interface Recorded {
  status: string;
  errors: Array<{ message: string; stack: string; location?: { file: string; line: number } }>;
  steps: Array<{ title: string; location?: { file: string; line: number } }>;
}

/**
 * A reporter for the inline run: the JSON reporter leaves step locations out,
 * so this one writes, per test, the errors (stack and location) and the steps
 * (title and location) that Playwright hands to reporters.
 */
const REPORTER = `
import { writeFileSync } from 'node:fs';
const strip = (text) => String(text ?? '').replace(/\\u001b\\[[0-9;]*m/g, '');
export default class LocationsReporter {
  tests = {};
  onStepEnd(test, _result, step) {
    if (step.category !== 'test.step') return;
    (this.tests[test.title] ??= { steps: [] }).steps.push({ title: step.title, location: step.location });
  }
  onTestEnd(test, result) {
    const entry = (this.tests[test.title] ??= { steps: [] });
    entry.status = result.status;
    entry.errors = result.errors.map((e) => ({ message: strip(e.message), stack: strip(e.stack), location: e.location }));
  }
  onEnd() {
    writeFileSync(process.env.INBOXKIT_OUT_DIR + '/locations.json', JSON.stringify(this.tests));
  }
}
`;

/** The first `at …` frame of the test's first error. */
function topFrame(recorded: Recorded): string {
  const stack = recorded.errors[0]?.stack ?? '';
  return stack.split('\n').find((line) => /^\s+at /.test(line))?.trim() ?? `(no frame in ${JSON.stringify(stack)})`;
}

const SPEC = `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';

test('the second of two waits times out', async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'Welcome', html: '<p>Your code is <b>482913</b></p><a href="https://app.example/confirm">Confirm</a>' });
  const welcome = await inbox.waitForMessage({ subject: 'Welcome' }); // WAIT-1
  expect(welcome.subject).toBe('Welcome');
  await inbox.waitForMessage({ subject: 'Never sent' }, { timeout: 300 }); // WAIT-2
});

test('a link that is not there', async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'Links', html: '<a href="https://app.example/confirm">Confirm</a>' });
  const message = await inbox.waitForMessage({ subject: 'Links' });
  message.link('Reset password'); // LINK
});

test('a code that is not there', async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'No code', text: 'Hello, nothing to type here.' });
  const message = await inbox.waitForMessage({ subject: 'No code' });
  message.otp(); // OTP
});

test('a message that should not arrive', async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'Surprise', text: 'hi' });
  await inbox.expectNoMessage({ subject: 'Surprise' }, { within: 1_000 }); // ABSENT
});
`;

test('each failure points at the spec line that caused it, in the error and in the report step', { tag: '@heavy' }, async ({ server }) => {
  const run = await runInline(
    { 'where.spec.ts': SPEC, 'locations-reporter.ts': REPORTER },
    { reporter: './locations-reporter.ts', inboxkit: { baseUrl: server.url }, env: smtpEnv(server) },
  );
  const recorded = JSON.parse(run.out.get('locations.json') ?? '{}') as Record<string, Recorded>;
  const at = (marker: string) => `where.spec.ts:${lineOf(SPEC, marker)}`;
  const of = (title: string): Recorded => {
    resultOf(run, title); // fails with the titles there were when it is missing
    return recorded[title]!;
  };

  const waits = of('the second of two waits times out');
  expect(waits.status).toBe('failed');
  expect(waits.errors[0]?.stack).toMatch(/^WaitTimeoutError: /);
  expect(topFrame(waits)).toContain(at('WAIT-2'));
  expect(waits.errors[0]?.location?.line).toBe(lineOf(SPEC, 'WAIT-2'));
  const steps = waits.steps.filter((step) => step.title.startsWith('wait for email'));
  expect(steps.map((step) => `${step.location?.file.split('/').pop()}:${step.location?.line}`)).toEqual([at('WAIT-1'), at('WAIT-2')]);

  for (const [title, marker, name] of [
    ['a link that is not there', 'LINK', 'LinkNotFoundError'],
    ['a code that is not there', 'OTP', 'OtpNotFoundError'],
    ['a message that should not arrive', 'ABSENT', 'UnexpectedMessageError'],
  ] as const) {
    const result = of(title);
    expect(result.status, title).toBe('failed');
    expect(result.errors[0]?.stack, title).toContain(name);
    expect(topFrame(result), title).toContain(at(marker));
    expect(result.errors[0]?.location?.line, title).toBe(lineOf(SPEC, marker));
  }
});
