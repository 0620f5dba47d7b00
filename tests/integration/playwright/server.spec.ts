/**
 * inboxkitServer() in a real config: the runner starts `inboxkit serve`
 * through the webServer entry, and the fixtures reach it through `use`.
 */
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

test('the webServer entry starts the local service for the run, and mail sent to its SMTP port reaches the fixture\'s inbox', async () => {
  const [port, smtpPort] = [await freePort(), await freePort()];
  const run = await runInline(
    {
      'served.spec.ts': `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';
test('uses the started service', async ({ inbox }) => {
  expect(inbox.handle.client.apiUrl).toBe('http://127.0.0.1:${port}/api/v1');
  expect(inbox.domain).toBe('acme.test');
  await send({ to: inbox.address, subject: 'Through the webServer', text: 'hi' });
  await expect(inbox).toHaveReceived({ subject: 'Through the webServer' });
});
`,
    },
    {
      config: `import { defineConfig } from '@playwright/test';
import { inboxkitServer } from '$FIXTURES';
const inboxkit = inboxkitServer({ port: ${port}, smtpPort: ${smtpPort}, args: ['--domain', 'acme.test'] });
process.env.INBOXKIT_SMTP_PORT = inboxkit.env.INBOXKIT_SMTP_PORT;
export default defineConfig({
  testDir: '.',
  outputDir: './test-results',
  workers: 1,
  reporter: [['json', { outputFile: 'report.json' }]],
  use: { ...inboxkit.use },
  webServer: [inboxkit.webServer],
});
`,
    },
  );
  const result = resultOf(run, 'uses the started service');
  expect(result.status, `${result.errors.join('\n')}\n${run.stderr}`).toBe('passed');
});
