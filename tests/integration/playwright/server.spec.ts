/**
 * inboxkitServer() in a real config: the runner starts `inboxkit serve`
 * through the webServer entry, and the fixtures reach it through `use`.
 * Its `spamCheck` option reaches the service: checked against the spamd that
 * `.ci/run` starts (INBOXKIT_TEST_SPAMD_URL; skipped, saying so, without it).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { resultOf, runInline } from './harness.ts';

/** A port that was free a moment ago (the OS hands out ephemeral ports in turn, so a reuse right away is unlikely). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A Playwright config whose webServer entry is `inboxkitServer({ port, smtpPort, <options> })`, the fixtures pointed at it. */
function servedConfig(port: number, smtpPort: number, options: string): string {
  return `import { defineConfig } from '@playwright/test';
import { inboxkitServer } from '$FIXTURES';
const inboxkit = inboxkitServer({ port: ${port}, smtpPort: ${smtpPort}, ${options} });
process.env.INBOXKIT_SMTP_PORT = inboxkit.env.INBOXKIT_SMTP_PORT;
export default defineConfig({
  testDir: '.',
  outputDir: './test-results',
  workers: 1,
  reporter: [['json', { outputFile: 'report.json' }]],
  use: { ...inboxkit.use },
  webServer: [inboxkit.webServer],
});
`;
}

test('the webServer entry starts the local service for the run with the domain given, and mail sent to its SMTP port reaches the fixture\'s inbox at that domain', { tag: '@heavy' }, async () => {
  const [port, smtpPort] = [await freePort(), await freePort()];
  const run = await runInline(
    {
      'served.spec.ts': `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';
test('uses the started service', async ({ inbox }) => {
  expect(inbox.handle.client.apiUrl).toBe('http://127.0.0.1:${port}/api/v1');
  expect(inbox.domain).toBe('acme.example.org');
  expect(inbox.address.endsWith('@acme.example.org')).toBe(true);
  await send({ to: inbox.address, subject: 'Through the webServer', text: 'hi' });
  await expect(inbox).toHaveReceived({ subject: 'Through the webServer' });
});
`,
    },
    {
      config: servedConfig(port, smtpPort, "domain: 'acme.example.org'"),
    },
  );
  const result = resultOf(run, 'uses the started service');
  expect(result.status, `${result.errors.join('\n')}\n${run.stderr}`).toBe('passed');
});

const SPAMD = process.env.INBOXKIT_TEST_SPAMD_URL;
const NO_SPAMD = 'no spam scanner: set INBOXKIT_TEST_SPAMD_URL to a running spamd (bash tests/support/spamd.sh start prints it; .ci/run does this)';

/** Runs one inline test against a service started by `inboxkitServer(options)`, with no scanner in the environment (only the option can give one). */
async function runWithServer(options: string, spec: string, title: string) {
  const [port, smtpPort] = [await freePort(), await freePort()];
  const run = await runInline(
    { 'served.spec.ts': `import { test, expect, SpamCheckUnavailableError } from '$FIXTURES';\nimport { send } from './send.ts';\n${spec}` },
    {
      config: servedConfig(port, smtpPort, options),
      // .ci/run exports INBOXKIT_SPAM_CHECK for the examples, and `inboxkit serve` reads it: empty, the service has a scanner only through the option.
      env: { INBOXKIT_SPAM_CHECK: '' },
    },
  );
  const result = resultOf(run, title);
  expect(result.status, `${result.errors.join('\n')}\n${run.stderr}`).toBe('passed');
}

test('inboxkitServer({ spamCheck }) gives the started service that scanner: message.spamCheck() answers its score and rules', { tag: '@heavy' }, async () => {
  test.skip(!SPAMD, NO_SPAMD);
  test.setTimeout(60_000); // a runner and a service started inside the test
  await runWithServer(
    `spamCheck: ${JSON.stringify(SPAMD)}`,
    `test('checks with the scanner', async ({ inbox }) => {
  await send({ from: 'Acme <orders@acme.example>', to: inbox.address, subject: 'Your order 1042 has shipped', text: 'Hello Ada,\\n\\nyour order 1042 has shipped.\\n\\nThe Acme team' });
  const message = await inbox.waitForMessage({ subject: /order 1042/ }, { timeout: 10_000 });
  const result = await message.spamCheck();
  expect(result).toMatchObject({ scanner: 'spamassassin', threshold: 5, spam: false });
  expect(result.rules.map((r) => r.name)).toEqual(expect.arrayContaining(['NO_RELAYS']));
});
`,
    'checks with the scanner',
  );
});

test('inboxkitServer() without spamCheck starts a service without a scanner: message.spamCheck() fails as not configured', { tag: '@heavy' }, async () => {
  test.setTimeout(60_000); // a runner and a service started inside the test
  await runWithServer(
    `args: ['--domain', 'acme.test']`,
    `test('has no scanner', async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'No scanner', text: 'hi' });
  const message = await inbox.waitForMessage({ subject: 'No scanner' }, { timeout: 10_000 });
  const error = await message.spamCheck().then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(SpamCheckUnavailableError);
  expect((error as SpamCheckUnavailableError).reason).toBe('not_configured');
});
`,
    'has no scanner',
  );
});

test('the guide\'s local config turns on the families toPassEmailChecks() skips by default: the spam check through inboxkitServer, authentication through a test DNS', { tag: '@heavy' }, async () => {
  test.skip(!SPAMD, NO_SPAMD);
  const config = (await readFile(new URL('./local-checks.config.ts', import.meta.url), 'utf8'))
    .replace("'../../../src/playwright/index.ts'", "'$FIXTURES'")
    .replace("'spamd://127.0.0.1:783'", JSON.stringify(SPAMD))
    // What the harness reads back: the JSON report, one worker, output beside it.
    .replace('export default defineConfig({', "export default defineConfig({\n  testDir: '.', outputDir: './test-results', workers: 1, reporter: [['json', { outputFile: 'report.json' }]],");
  const run = await runInline(
    {
      'checks.spec.ts': `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';
test('runs every family', async ({ inbox }) => {
  await send({ from: 'Acme <orders@acme.example>', to: inbox.address, subject: 'Your order 1042 has shipped', text: 'Hello Ada,\\n\\nyour order 1042 has shipped.\\n\\nThe Acme team' });
  const message = await inbox.waitForMessage({ subject: /order 1042/ });
  // This sender signs nothing (no DKIM key in the test DNS): SPF and DMARC carry it.
  await expect(message).toPassEmailChecks({ content: false, links: false, authentication: { dkim: ['pass', 'none'] } });
});
`,
    },
    { config, env: { INBOXKIT_SPAM_CHECK: '' } },
  );
  const result = resultOf(run, 'runs every family');
  expect(result.status, `${result.errors.join('\n')}\n${run.stderr}`).toBe('passed');
  // Each family that ran attached its table; neither was skipped.
  expect(result.attachments.map((a) => a.name)).toEqual(expect.arrayContaining(['spam — Your order 1042 has shipped', 'authentication — Your order 1042 has shipped']));
});
