/**
 * The authenticator in the report, through the real runner: enrolment and
 * each code are steps at the spec's lines, a failed enrolment's error points
 * at the spec's line, and the secret appears nowhere in the report or the
 * output, not even when the test logs the device.
 */
import { expect } from '@playwright/test';
import { resultOf, runInline, test } from './harness.ts';

const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

const SPEC = `
import { test, expect } from '$FIXTURES';

test('enrols and takes two codes', async ({ authenticator }) => {
  const device = await authenticator.enroll('otpauth://totp/Acme:alice?secret=${SECRET}&issuer=Acme', { minRemaining: 0, clock: { now: () => 1_000, sleep: async () => {} } }); // ENROL
  console.log(device, JSON.stringify(device));
  const code = await device.code(); // CODE-1
  expect(code).toMatch(/^\\d{6}$/);
});

test('a bad enrolment fails at its line', async ({ authenticator }) => {
  await authenticator.enroll('otpauth://totp/Acme:alice?secret=${SECRET}&algorithm=MD5'); // BAD
});
`;

/** The JSON reporter leaves step locations and error stacks out: this reporter writes them. */
const REPORTER = `
import { writeFileSync } from 'node:fs';
export default class StepLines {
  steps = [];
  errors = [];
  onStepEnd(_test, _result, step) {
    if (step.category === 'test.step') this.steps.push({ title: step.title, line: step.location?.line, file: step.location?.file });
  }
  onTestEnd(_test, result) {
    for (const e of result.errors) this.errors.push({ stack: String(e.stack ?? '').replace(/\\u001b\\[[0-9;]*m/g, ''), line: e.location?.line });
  }
  onEnd() {
    writeFileSync(process.env.INBOXKIT_OUT_DIR + '/steps.json', JSON.stringify({ steps: this.steps, errors: this.errors }));
  }
}
`;

function lineOf(text: string, marker: string): number {
  const index = text.split('\n').findIndex((line) => line.includes(marker));
  if (index < 0) throw new Error(`no line with ${marker}`);
  return index + 1;
}

test('enrolment and codes are report steps at the spec\'s lines, and the secret is never in the report', { tag: '@heavy' }, async () => {
  const run = await runInline({ 'two-factor.spec.ts': SPEC, 'step-lines.ts': REPORTER }, { reporter: './step-lines.ts' });
  const { steps, errors } = JSON.parse(run.out.get('steps.json') ?? '{}') as { steps: Array<{ title: string; line?: number; file?: string }>; errors: Array<{ stack: string; line?: number }> };
  const ok = resultOf(run, 'enrols and takes two codes');
  expect(ok.status, ok.errors.join('\n')).toBe('passed');
  const located = (prefix: string) => steps.filter((s) => s.title.startsWith(prefix)).map((s) => `${s.file?.split('/').pop()}:${s.line}`);
  expect(located('enrol authenticator from an otpauth:// URI')).toEqual([`two-factor.spec.ts:${lineOf(SPEC, 'ENROL')}`, `two-factor.spec.ts:${lineOf(SPEC, 'BAD')}`]);
  expect(located('authenticator code: Acme')).toEqual([`two-factor.spec.ts:${lineOf(SPEC, 'CODE-1')}`]);
  expect(ok.steps.some((title) => /^enrolled Acme \(alice\), TOTP SHA1, 6 digits, 30 s, secret GEZD…\(32 characters\)$/.test(title))).toBe(true);
  expect(ok.steps.some((title) => /^code \d{6} \(valid 29 s more\)$/.test(title))).toBe(true);
  expect(ok.stdout).toContain('AuthenticatorDevice { Acme (alice)');

  const bad = resultOf(run, 'a bad enrolment fails at its line');
  expect(bad.status).toBe('failed');
  expect(errors).toHaveLength(1);
  expect(errors[0]?.stack).toMatch(/^AuthenticatorError: authenticator: the algorithm "MD5" is not supported/);
  expect(errors[0]?.stack.split('\n').find((line) => /^\s+at /.test(line))).toContain(`two-factor.spec.ts:${lineOf(SPEC, 'BAD')}`);
  expect(errors[0]?.line).toBe(lineOf(SPEC, 'BAD'));

  for (const [where, text] of [['report', run.reportText], ['stdout', run.stdout], ['stderr', run.stderr]]) {
    // The spec's own source is in the report's error snippet for the failing line only as code, which holds the secret:
    // so look for the secret outside the lines of the spec.
    const outside = text!.split('\n').filter((line) => !line.includes('otpauth://totp/Acme:alice?secret=')).join('\n');
    expect(outside, where).not.toContain(SECRET);
  }
});
