/**
 * Email tests as a team's CI runs them against a shared service: each makes
 * an inbox through the balancer, has "the app" send a sign-in code through
 * Postfix, and waits for it on the inbox's stream. The harness restarts the
 * nodes and the database meanwhile: every test must still pass.
 */
import { existsSync } from 'node:fs';
import nodemailer from 'nodemailer';
import { test, expect } from '../../src/playwright/index.ts';

const COUNT = Number(process.env.INBOXKIT_TEAM_TESTS ?? 200);
const RELAY_PORT = Number(process.env.INBOXKIT_TEAM_RELAY_PORT ?? 25);
/** A file the harness writes once every restart is done; the last tests wait for it, so the suite never ends before the restarts. */
const RESTARTS_DONE = process.env.INBOXKIT_TEAM_RESTARTS_DONE;
/**
 * A folder where the harness writes `release-K` as it begins restart K: the tests come in
 * batches, and batch K waits for its file, so that every restart has tests running through it
 * however fast the machine runs the suite. Batch 0 needs none.
 */
const GATES = process.env.INBOXKIT_TEAM_GATES;
const BATCHES = Number(process.env.INBOXKIT_TEAM_BATCHES ?? 1);
const LAST = 4;

/** The batch of test `i`: the tests split evenly, in order. */
function batchOf(i: number): number {
  return Math.floor(i / Math.ceil(COUNT / BATCHES));
}

for (let i = 0; i < COUNT; i++) {
  test(`sign-in code ${i} sent by the app through Postfix reaches the test through the balancer`, async ({ inbox }) => {
    const batch = batchOf(i);
    if (GATES && batch > 0) {
      // The inbox was made; the test goes on once the restart its batch belongs to has begun.
      test.setTimeout(600_000);
      await expect.poll(() => existsSync(`${GATES}/release-${batch}`), { timeout: 540_000, intervals: [100] }).toBe(true);
    }
    if (i >= COUNT - LAST && RESTARTS_DONE) {
      // The inbox was made before the restarts; its mail is sent and waited for after them.
      test.setTimeout(600_000);
      await expect.poll(() => existsSync(RESTARTS_DONE), { timeout: 540_000, intervals: [250] }).toBe(true);
    }
    const code = String(100_000 + ((i * 7919) % 900_000));
    const relay = nodemailer.createTransport({ host: '127.0.0.1', port: RELAY_PORT, secure: false, ignoreTLS: true });
    await relay.sendMail({ from: 'no-reply@app.test', to: inbox.address, subject: `Your sign-in code #${i}`, text: `Your code is ${code}. It expires in 10 minutes.` });
    const message = await inbox.waitForMessage({ subject: `Your sign-in code #${i}` });
    expect(message.otp()).toBe(code);
  });
}
