/**
 * A message's raw source is read once, however many checks read it: the
 * email checks (content rules, sender authentication, compatibility),
 * `toBeAccessible` in light and dark, `toHaveScreenshot` at two widths and
 * the report's `.eml` share one `GET /messages/{id}/raw`, counted here by a
 * proxy between the inner run's fixtures and the service.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from '@playwright/test';
import { REPO, resultOf, runInline, smtpEnv, test } from './harness.ts';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

const SPEC = `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';

test('every check of one message', async ({ inbox }) => {
  await send({
    to: inbox.address,
    subject: 'Welcome',
    text: 'Welcome aboard. Your code is 482913.',
    html: '<html lang="en"><body style="font-family:sans-serif;color:#111;background:#fff"><h1>Welcome aboard</h1><p>Your code is <strong>482913</strong>.</p></body></html>',
  });
  const message = await inbox.waitForMessage({ subject: 'Welcome' });
  await expect(message).toPassEmailChecks({ authentication: { dns: {}, dkim: 'none', spf: 'none', dmarc: 'none' }, compatibility: { clients: ['gmail'] }, links: false });
  await expect(message).toBeAccessible();
  await expect(message).toHaveScreenshot('welcome.png', { widths: ['mobile', 600] });
  await message.compatibility(['gmail']);
  await message.contentChecks();
  await message.raw();
});
`;

/** An HTTP proxy to `target` that counts the raw-source reads it passes on. */
async function countingProxy(target: string): Promise<{ url: string; raws: string[]; close(): Promise<void> }> {
  const raws: string[] = [];
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    if (req.method === 'GET' && /\/messages\/[^/]+\/raw$/.test((req.url ?? '').split('?')[0]!)) raws.push(req.url ?? '');
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    raws,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test('the email checks, two audits, two screenshots and the report read a message\'s raw source once', { tag: '@heavy' }, async ({ server }) => {
  test.skip(CHROMIUM === undefined, 'no system Chromium at /usr/bin/chromium');
  test.setTimeout(240_000);
  const proxy = await countingProxy(server.url);
  const snapshots = path.join(REPO, '.tmp', `one-reading-${test.info().workerIndex}-${Date.now()}`);
  await mkdir(snapshots, { recursive: true });
  try {
    const run = await runInline(
      { 'checks.spec.ts': SPEC },
      {
        env: smtpEnv(server),
        config: `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.',
  outputDir: './test-results',
  workers: 1,
  retries: 0,
  timeout: 180_000,
  reporter: [['json', { outputFile: 'report.json' }]],
  snapshotPathTemplate: ${JSON.stringify(`${snapshots}/{arg}{ext}`)},
  updateSnapshots: 'all',
  use: {
    inboxkit: { baseUrl: ${JSON.stringify(proxy.url)} },
    launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ['--no-sandbox', '--disable-gpu'] },
  },
});
`,
      },
    );
    const result = resultOf(run, 'every check of one message');
    expect(result.errors).toEqual([]);
    expect(result.status).toBe('passed');
    expect(proxy.raws, 'GET /messages/{id}/raw requests of the run').toHaveLength(1);
  } finally {
    await proxy.close();
    await rm(snapshots, { recursive: true, force: true });
  }
});
