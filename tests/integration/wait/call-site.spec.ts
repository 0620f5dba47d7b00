/**
 * Errors of the client's waits, links and codes point at the caller's line,
 * not at inboxkit's timers and stream callbacks: the first frame of the stack
 * is the line of this file that made the call.
 */
import { fileURLToPath } from 'node:url';
import { test, expect } from './fixtures.ts';
import { LinkNotFoundError, OtpNotFoundError, UnexpectedMessageError, WaitTimeoutError } from '../../../src/client/index.ts';

const THIS_FILE = fileURLToPath(import.meta.url);

/** The first `at …` frame of an error's stack. */
function topFrame(error: unknown): string {
  return ((error as Error).stack ?? '').split('\n').find((line) => /^\s+at /.test(line)) ?? '(no frame)';
}

/** The line number of this file the next statement after the call is on, from a fresh stack. */
function lineHere(): number {
  const line = (new Error().stack ?? '').split('\n')[2] ?? '';
  return Number(/:(\d+):\d+\)?$/.exec(line)?.[1]);
}

test('a wait that times out throws a WaitTimeoutError whose stack starts at the line that called waitForMessage', async ({ guest }) => {
  const inbox = await guest.inboxes.create();
  const line = lineHere(); const error = await inbox.waitForMessage({ subject: 'never' }, { timeout: 200 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WaitTimeoutError);
  expect((error as Error).stack).toMatch(/^WaitTimeoutError: waitForMessage timed out/);
  expect(topFrame(error)).toContain(`${THIS_FILE}:${line}:`);
});

test('expectNoMessage, link() and otp() errors start at the caller\'s line too', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, subject: 'Hello', html: '<p>Nothing to type.</p><a href="https://app.example/home">Home</a>' });
  let line = lineHere(); const unexpected = await inbox.expectNoMessage({ subject: 'Hello' }, { within: 2_000 }).catch((e: unknown) => e);
  expect(unexpected).toBeInstanceOf(UnexpectedMessageError);
  expect(topFrame(unexpected)).toContain(`${THIS_FILE}:${line}:`);

  const message = await inbox.waitForMessage({ subject: 'Hello' }, { timeout: 10_000 });
  let linkError: unknown;
  line = lineHere(); try { message.link('Reset password'); } catch (e) { linkError = e; }
  expect(linkError).toBeInstanceOf(LinkNotFoundError);
  expect(topFrame(linkError)).toContain(`${THIS_FILE}:${line}:`);
  let otpError: unknown;
  line = lineHere(); try { message.otp(); } catch (e) { otpError = e; }
  expect(otpError).toBeInstanceOf(OtpNotFoundError);
  expect(topFrame(otpError)).toContain(`${THIS_FILE}:${line}:`);
});
