/**
 * `expect(message).toHaveScreenshot()` through the real runner: the first run
 * writes the snapshot where Playwright's `snapshotPathTemplate` says, the
 * second passes, a changed template fails with Playwright's expected, actual
 * and diff images in the report, and `--update-snapshots` rewrites it.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { REPO, resultOf, runInline, smtpEnv, test } from './harness.ts';
import { expect } from '@playwright/test';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

const SPEC = `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';

test('welcome email looks the same', async ({ inbox }) => {
  const heading = process.env.TEMPLATE === 'v2' ? 'Welcome aboard, friend!' : 'Welcome aboard';
  await send({
    to: inbox.address,
    subject: 'Welcome',
    html: '<html lang="en"><body style="font-family:sans-serif"><h1>' + heading + '</h1><p>Your code is 482913, sent ' + new Date().toISOString() + '.</p><img src="https://cdn.example/logo.png" width="100" height="30" alt="Acme"></body></html>',
  });
  const message = await inbox.waitForMessage({ subject: 'Welcome' });
  await expect(message).toHaveScreenshot('welcome.png', { widths: ['mobile', 600] });
});

test("a page still gets Playwright's own toHaveScreenshot", async ({ page }) => {
  await page.setViewportSize({ width: 300, height: 200 });
  await page.setContent('<p style="font:20px sans-serif">A page of the app</p>');
  await expect(page).toHaveScreenshot('page.png');
  await expect(page.locator('p')).toHaveScreenshot('paragraph.png');
});
`;

function config(snapshots: string): string {
  return `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.',
  outputDir: './test-results',
  workers: 1,
  retries: 0,
  reporter: [['json', { outputFile: 'report.json' }]],
  snapshotPathTemplate: ${JSON.stringify(`${snapshots}/{arg}{ext}`)},
  use: {
    inboxkit: { baseUrl: process.env.INBOXKIT_BASE_URL },
    launchOptions: { executablePath: ${JSON.stringify(CHROMIUM)}, args: ['--no-sandbox', '--disable-gpu'] },
  },
});
`;
}

test('the first run writes the snapshots, the second passes, a changed template fails with a diff image', { tag: '@heavy' }, async ({ server }) => {
  test.skip(CHROMIUM === undefined, 'no system Chromium at /usr/bin/chromium');
  test.setTimeout(180_000);
  const snapshots = path.join(REPO, '.tmp', `snapshots-${test.info().workerIndex}-${Date.now()}`);
  await mkdir(snapshots, { recursive: true });
  const env = { ...smtpEnv(server), INBOXKIT_BASE_URL: server.url };
  const title = 'welcome email looks the same';
  try {
    const first = await runInline({ 'visual.spec.ts': SPEC }, { config: config(snapshots), env });
    // As Playwright does with a missing snapshot: it is written, and the test says so.
    expect(resultOf(first, title).errors.join('\n')).toMatch(/welcome-mobile\.png.*(doesn't exist|writing actual)/s);
    expect((await readdir(snapshots)).sort()).toEqual(['page.png', 'paragraph.png', 'welcome-600.png', 'welcome-mobile.png']);
    const facts = resultOf(first, title).attachments.find((a) => a.name.startsWith('visual snapshot — Welcome'));
    expect(facts?.body.toString()).toContain('width 375px, light');
    expect(facts?.body.toString()).toMatch(/masked dynamic parts: code "482913", date "\d{4}-\d{2}-\d{2}T/);

    const second = await runInline({ 'visual.spec.ts': SPEC }, { config: config(snapshots), env });
    expect(resultOf(second, title)).toMatchObject({ status: 'passed', errors: [] });
    expect(resultOf(second, "a page still gets Playwright's own toHaveScreenshot")).toMatchObject({ status: 'passed', errors: [] });

    const changed = await runInline({ 'visual.spec.ts': SPEC }, { config: config(snapshots), env: { ...env, TEMPLATE: 'v2' } });
    expect(resultOf(changed, "a page still gets Playwright's own toHaveScreenshot").status).toBe('passed');
    const failed = resultOf(changed, title);
    expect(failed.status).toBe('failed');
    expect(failed.errors.join('\n')).toMatch(/Screenshot comparison failed|pixels .* are different/);
    const images = failed.attachments.filter((a) => a.contentType === 'image/png').map((a) => a.name);
    expect(images).toEqual(expect.arrayContaining(['welcome-mobile-expected.png', 'welcome-mobile-actual.png', 'welcome-mobile-diff.png']));
  } finally {
    await rm(snapshots, { recursive: true, force: true });
  }
});
