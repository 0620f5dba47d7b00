/**
 * The viewer's Renders tab, on demand (issue 25 item 5): client profiles side
 * by side with what each removed, and axe-core's accessibility findings from
 * an audit frame of its own; and the Checks tab's client compatibility (issue
 * 30 item 5). Real browser, real service, the viewer built from the sources.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { startServer } from '../../../src/server/index.ts';
import { OPERATOR_TOKEN, expect, test } from './harness.ts';

const FLEX_AND_POSITION = '<style>.box{position:absolute}</style><div class="box" style="display:flex"><p>Hello from a flex box</p></div>';

test('client profiles show the email as Gmail, Outlook and Apple Mail side by side, each with what it removed', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  await viewer.send({ to: inbox.address, subject: 'Flex layout', html: FLEX_AND_POSITION, text: 'Hello' });
  const scripts: string[] = [];
  page.on('request', (r) => void (r.resourceType() === 'script' && scripts.push(new URL(r.url()).pathname)));
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Flex layout/ }).click();
  await page.getByRole('tab', { name: 'Renders' }).click();
  await expect(page.getByRole('button', { name: 'Show client profiles' })).toBeVisible();
  // The caniemail data is not part of the first load.
  expect(scripts).not.toContain('/viewer/email-clients.js');

  await page.getByRole('button', { name: 'Show client profiles' }).click();
  const outlook = page.locator('figure[data-client="outlook.windows"]');
  const gmail = page.locator('figure[data-client="gmail.desktop-webmail"]');
  const apple = page.locator('figure[data-client="apple-mail.ios"]');
  await expect(outlook.getByRole('list', { name: 'Removed' })).toContainText('display declaration ×1');
  await expect(outlook.getByRole('link', { name: '(css-display-flex)' })).toHaveAttribute('href', 'https://www.caniemail.com/features/css-display-flex/');
  await expect(gmail.getByRole('heading', { name: 'Removed for Gmail Desktop Webmail' })).toBeVisible();
  await expect(gmail).not.toContainText('display declaration');
  await expect(apple.getByText('Nothing removed.')).toBeVisible();
  expect(scripts).toContain('/viewer/email-clients.js');

  // The frames show the profiled HTML: Outlook's has lost display:flex, Apple Mail's kept it.
  const display = (figure: typeof outlook) => figure.locator('iframe').contentFrame().locator('div.box').evaluate((e) => getComputedStyle(e).display);
  await expect.poll(() => display(outlook)).toBe('block');
  await expect.poll(() => display(apple)).toBe('flex');
  await expect(outlook.locator('iframe')).toHaveAttribute('sandbox', 'allow-popups allow-popups-to-escape-sandbox');
  // The width presets size the profiles too.
  await page.getByRole('button', { name: '600 px' }).click();
  await expect.poll(async () => (await outlook.locator('iframe').boundingBox())!.width).toBeGreaterThan(500);
  await page.getByRole('button', { name: '375 px' }).click();
  await expect.poll(async () => (await apple.locator('iframe').boundingBox())!.width).toBeLessThanOrEqual(375);
});

test('the Checks tab lists the clients that lack a feature the email uses', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  await viewer.send({ to: inbox.address, subject: 'Flex checks', html: FLEX_AND_POSITION, text: 'Hello' });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Flex checks/ }).click();
  await page.getByRole('tab', { name: 'Checks' }).click();
  await page.getByRole('button', { name: 'Run checks' }).click();
  const table = page.getByRole('table', { name: /Client compatibility/ });
  await expect(table.getByRole('row', { name: /^Outlook Windows/ })).toContainText('display:flex');
  await expect(table.getByRole('row', { name: /^Outlook Windows/ }).getByRole('link', { name: 'display:flex' })).toHaveAttribute('href', /caniemail\.com/);
  await expect(table.getByRole('row', { name: /^Apple Mail iOS/ })).not.toContainText('display:flex');
  await expect(page.getByText('Some clients lack features this email uses.')).toBeVisible();
  // Sender authentication is checked on demand against a pasted test DNS (checks.spec.ts).
  await expect(page.getByRole('button', { name: 'Check authentication' })).toBeVisible();
});

test('the accessibility check lists an image without alt and a layout table, with impact, help link and selector', { tag: '@heavy' }, async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  const html = '<table><tr><td><img src="https://cdn.acme.example/logo.png" width="120" height="40"></td><td><p>Welcome aboard</p></td></tr></table>';
  await viewer.send({ to: inbox.address, subject: 'Inaccessible', html, text: 'Welcome aboard' });
  const requests: string[] = [];
  page.on('request', (r) => void requests.push(r.url()));
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Inaccessible/ }).click();
  await page.getByRole('tab', { name: 'Renders' }).click();
  // Record the audit frame as it is added: its sandbox and its policy.
  await page.evaluate(() => {
    const seen: Array<{ sandbox: string | null; csp: string | null; srcdoc: string }> = [];
    (window as unknown as { auditFrames: typeof seen }).auditFrames = seen;
    new MutationObserver((records) => {
      for (const r of records) for (const n of r.addedNodes) if (n instanceof HTMLIFrameElement && n.classList.contains('audit-frame')) seen.push({ sandbox: n.getAttribute('sandbox'), csp: n.getAttribute('csp'), srcdoc: n.srcdoc });
    }).observe(document.body, { childList: true, subtree: true });
  });
  await page.getByRole('button', { name: 'Check accessibility' }).click();
  const table = page.getByRole('table', { name: /accessibility violation/ });
  const imageAlt = table.getByRole('row', { name: /^image-alt/ });
  // An axe audit in light and dark takes seconds on a loaded machine.
  await expect(imageAlt).toContainText('critical', { timeout: 15_000 });
  await expect(imageAlt.getByRole('link')).toHaveAttribute('href', /^https:\/\/dequeuniversity\.com\/rules\/axe\/.*image-alt/);
  await expect(imageAlt).toContainText('img');
  await expect(imageAlt.getByRole('cell').last()).toHaveText('light, dark');
  const layout = table.getByRole('row', { name: /^inboxkit-layout-table/ });
  await expect(layout).toContainText('moderate');
  await expect(layout).toContainText('table');
  await expect(layout.getByRole('link')).toHaveAttribute('href', 'https://www.w3.org/WAI/tutorials/tables/');
  const frames = await page.evaluate(() => (window as unknown as { auditFrames: Array<{ sandbox: string | null; csp: string | null; srcdoc: string }> }).auditFrames);
  // One audit in light mode, one in dark mode.
  expect(frames).toHaveLength(2);
  // Scripts, but an opaque origin (no allow-same-origin), and a policy that runs only the scripts with the frame's nonce.
  expect(frames[0]!.sandbox).toBe('allow-scripts');
  expect(frames[0]!.csp).toMatch(/^default-src 'none'; script-src 'nonce-[0-9a-f]{36}';/);
  expect(frames[0]!.srcdoc).toContain(`<meta http-equiv="Content-Security-Policy" content="${frames[0]!.csp}">`);
  // The email's remote image is never requested, by the audit frame or any other.
  expect(requests.filter((u) => u.includes('cdn.acme.example'))).toEqual([]);
  await expect(page.locator('iframe.audit-frame')).toHaveCount(0);
});

test('the accessibility check of a clean email finds no violations', { tag: '@heavy' }, async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  const html = '<h1>Welcome</h1><p>Your account is ready.</p><table role="presentation"><tr><td><img src="https://cdn.acme.example/logo.png" alt="Acme"></td></tr></table>';
  await viewer.send({ to: inbox.address, subject: 'Accessible', html, text: 'Welcome' });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Accessible/ }).click();
  await page.getByRole('tab', { name: 'Renders' }).click();
  await page.getByRole('button', { name: 'Check accessibility' }).click();
  await expect(page.getByText('No accessibility violations found')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByRole('table', { name: /accessibility violation/ })).toHaveCount(0);
});

test('the accessibility check audits dark mode too: low contrast only in dark mode is found there', { tag: '@heavy' }, async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  const html = '<style>@media (prefers-color-scheme: dark){body{background:#000000} p{color:#222222}}</style><h1>Welcome</h1><p>Readable by day only</p>';
  await viewer.send({ to: inbox.address, subject: 'Dark contrast', html, text: 'Welcome' });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Dark contrast/ }).click();
  await page.getByRole('tab', { name: 'Renders' }).click();
  await page.getByRole('button', { name: 'Check accessibility' }).click();
  const contrast = page.getByRole('table', { name: /accessibility violation/ }).getByRole('row', { name: /^color-contrast/ });
  await expect(contrast).toContainText('serious', { timeout: 15_000 });
  await expect(contrast.getByRole('cell').last()).toHaveText('dark');
});

test('a viewer built without axe-core says how to install it when asked for the accessibility check', async ({ page, viewerAssets }) => {
  const dir = mkdtempSync(join(tmpdir(), 'inboxkit-viewer-no-axe-'));
  cpSync(viewerAssets, dir, { recursive: true });
  for (const file of ['axe.min.js.gz', 'axe-runner.js']) rmSync(join(dir, file));
  const server = await startServer({ operatorToken: OPERATOR_TOKEN, viewerAssetsDir: dir, rateLimit: false });
  try {
    const res = await fetch(`${server.apiUrl}/inboxes`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    const inbox = ((await res.json()) as { data: { id: string; address: string; token: string } }).data;
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true });
    await transport.sendMail({ from: 'no-reply@acme.example', to: inbox.address, subject: 'No axe here', html: '<p>Hello</p>' });
    transport.close();
    await page.goto(`${server.url}/#${new URLSearchParams({ token: inbox.token, inbox: inbox.id })}`);
    await page.getByRole('link', { name: /No axe here/ }).click();
    await page.getByRole('tab', { name: 'Renders' }).click();
    await page.getByRole('button', { name: 'Check accessibility' }).click();
    await expect(page.getByRole('alert')).toContainText('npm install --save-dev axe-core');
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
