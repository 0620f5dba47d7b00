/**
 * The fixture's wait returns at once: the raw `.eml` of the matched message
 * is fetched in the background and attached at teardown, also when the test
 * then fails or runs out of time. Through the real runner.
 */
import { expect } from '@playwright/test';
import { startHttpProxy } from '../wait/fixtures.ts';
import { resultOf, runInline, smtpEnv, test } from './harness.ts';

test('waitForMessage returns before the raw source is read, and the .eml is still attached when the test passes, fails or times out', { tag: '@heavy' }, async ({ server }) => {
  // The raw source is held back until the inner tests say their wait returned:
  // a wait that read it before returning would never return.
  const proxy = await startHttpProxy(new URL(server.url), 'pass');
  proxy.hold = /^GET \/api\/v1\/messages\/[^/]+\/raw$/;
  try {
    const run = await runInline(
      {
        'raw.spec.ts': `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';
const waitReturned = () => fetch(process.env.RELEASE_URL!).then((r) => r.text());
test('passes', async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'Passing mail', text: 'one' });
  await inbox.waitForMessage({ subject: 'Passing mail' });
  await waitReturned();
});
test('fails', async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'Failing mail', text: 'two' });
  await inbox.waitForMessage({ subject: 'Failing mail' });
  await waitReturned();
  expect('the page').toBe('another page');
});
test('times out', async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'Stuck mail', text: 'three' });
  await inbox.waitForMessage({ subject: 'Stuck mail' });
  await waitReturned();
  await new Promise(() => {});
});
`,
      },
      { inboxkit: { baseUrl: proxy.url }, configExtra: 'timeout: 5000,', env: { ...smtpEnv(server), RELEASE_URL: `${proxy.url}/__release` } },
    );
    for (const [title, status, subject] of [
      ['passes', 'passed', 'Passing mail'],
      ['fails', 'failed', 'Failing mail'],
      ['times out', 'timedOut', 'Stuck mail'],
    ] as const) {
      const result = resultOf(run, title);
      expect(result.status, `${title}: ${result.errors.join('\n')}`).toBe(status);
      const eml = result.attachments.find((a) => a.name === `email 1 — ${subject}.eml`);
      expect(eml?.contentType, `${title} has its .eml`).toBe('message/rfc822');
      expect(eml?.body.toString()).toMatch(new RegExp(`^Subject: ${subject}$`, 'm'));
    }
    expect(proxy.requests.filter((r) => r.endsWith('/raw')).length).toBeGreaterThanOrEqual(3);
  } finally {
    await proxy.close();
  }
});
