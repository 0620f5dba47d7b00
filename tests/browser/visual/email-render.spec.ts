/**
 * Rendering an email for snapshots and audits, in Chromium (Firefox and WebKit
 * where installed): deterministic pixels, no network unless images are loaded,
 * dark mode, client profiles, and axe-core's findings through `toBeAccessible`.
 */
import { existsSync } from 'node:fs';
import { firefox, webkit } from '@playwright/test';
import type { Page } from '@playwright/test';
import { expect } from '../../../src/playwright/index.ts';
import { renderEmail } from '../../../src/playwright/render.ts';
import { parseOriginal } from '../../../src/checks/original.ts';
import { test } from '../email-fixtures.ts';
import type { Site } from '../email-fixtures.ts';

// Every test here renders an email in a browser page (several times over, or in several modes, or with an
// axe-core audit): a second or two each on a quiet machine, many times that on a loaded 2-core CI machine.
// They budget for the loaded one; none asserts how long anything took.
test.describe.configure({ timeout: 120_000 });

function codeEmail(site: Site, code: string, date: string): string {
  return `<!doctype html><html lang="en"><body style="font-family:sans-serif;margin:0">
    <table role="presentation" width="600" style="margin:0 auto"><tr><td style="padding:24px">
      <img src="${site.url}/logo.png" width="120" height="40" alt="Acme">
      <h1>Your sign-in code</h1>
      <p>Enter <strong style="font-size:28px">${code}</strong> to sign in.</p>
      <p>Requested on ${date}.</p>
    </td></tr></table></body></html>`;
}

async function shot(page: Page): Promise<Buffer> {
  return page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide', mask: [page.locator('[data-inboxkit-dynamic]')] });
}

test('twenty renders of an email with a code, a date and a remote image give identical pixels, and so does the next send with another code and date', { tag: '@heavy' }, async ({ inbox, send, site }) => {
  test.setTimeout(240_000); // twenty renders and screenshots, then one more
  await send({ to: inbox.address, subject: 'Code 1', html: codeEmail(site, '482913', '2026-11-25 19:17 UTC') });
  await send({ to: inbox.address, subject: 'Code 2', html: codeEmail(site, '771204', '2026-12-01 08:05 UTC') });
  const first = await inbox.waitForMessage({ subject: 'Code 1' });
  const second = await inbox.waitForMessage({ subject: 'Code 2' });

  const shots: Buffer[] = [];
  for (let i = 0; i < 20; i++) {
    const render = await first.render();
    try {
      if (i === 0) expect(render.dynamic).toEqual([{ kind: 'code', text: '482913' }, { kind: 'date', text: '2026-11-25 19:17 UTC' }]);
      shots.push(await shot(render.page));
    } finally {
      await render.close();
    }
  }
  expect(shots.filter((s) => !s.equals(shots[0] as Buffer))).toHaveLength(0);
  // #region render
  const render = await second.render();
  try {
    expect((await shot(render.page)).equals(shots[0] as Buffer)).toBe(true);
  } finally {
    await render.close();
  }
  // #endregion
  expect(site.requests).toEqual([]);
});

test('remote images reach the network only when loaded, and a placeholder keeps the declared size', async ({ inbox, send, site }) => {
  await send({ to: inbox.address, subject: 'Images', html: `<p>Logo: <img id="logo" src="${site.url}/logo.png" width="120" height="40" alt="Acme"></p>` });
  const message = await inbox.waitForMessage({ subject: 'Images' });
  for (const images of ['placeholder', 'blocked'] as const) {
    const render = await message.render({ images });
    const box = await render.page.locator('#logo').boundingBox();
    if (images === 'placeholder') expect(box).toMatchObject({ width: 120, height: 40 });
    await render.close();
  }
  expect(site.requests).toEqual([]);
  const loaded = await message.render({ images: 'loaded' });
  await loaded.close();
  expect(site.requests).toEqual(['/logo.png']);
});

test('dark mode differs from light where the email uses prefers-color-scheme, and a client without it gets the forced-dark approximation', { tag: '@heavy' }, async ({ inbox, send }) => {
  const styled = `<html><head><style>body{background:#ffffff;color:#111111} @media (prefers-color-scheme: dark){body{background:#111111;color:#eeeeee}}</style></head><body><p>Hello</p></body></html>`;
  await send({ to: inbox.address, subject: 'Dark aware', html: styled });
  await send({ to: inbox.address, subject: 'Plain', html: '<p style="color:#111111">Hello</p>' });
  const aware = await inbox.waitForMessage({ subject: 'Dark aware' });
  const plain = await inbox.waitForMessage({ subject: 'Plain' });
  const pixels = async (message: typeof aware, options: Parameters<typeof aware.render>[0]) => {
    const render = await message.render({ width: 400, ...options });
    try {
      return { png: await shot(render.page), render };
    } finally {
      await render.close();
    }
  };
  const light = await pixels(aware, { colorScheme: 'light' });
  const dark = await pixels(aware, { colorScheme: 'dark' });
  expect(dark.render.darkMode).toBe('media');
  expect(dark.png.equals(light.png)).toBe(false);
  expect((await pixels(plain, { colorScheme: 'dark' })).png.equals((await pixels(plain, { colorScheme: 'light' })).png)).toBe(true);

  const apple = await pixels(aware, { colorScheme: 'dark', client: 'apple-mail.macos' });
  expect(apple.render.darkMode).toBe('media');
  const gmail = await pixels(aware, { colorScheme: 'dark', client: 'gmail.desktop-webmail' });
  expect(gmail.render.darkMode).toBe('forced');
  expect(gmail.render.profile?.removed.map((r) => r.slug)).toContain('css-at-media-prefers-color-scheme');
  expect(gmail.png.equals(light.png)).toBe(false);
});

test('an email lacking alt text, with low contrast, a layout table and no lang fails toBeAccessible naming each; a clean one passes', { tag: '@heavy' }, async ({ inbox, send }) => {
  await send({
    to: inbox.address,
    subject: 'Careless',
    html: `<html><body><table><tr><td><img src="https://cdn.example/hero.png" width="300" height="100"></td></tr>
      <tr><td><p style="color:#bbbbbb;background:#ffffff">Low contrast text</p><a href="https://acme.example/x"><img src="https://cdn.example/b.png" width="20" height="20"></a></td></tr></table></body></html>`,
  });
  await send({
    to: inbox.address,
    subject: 'Careful',
    html: `<html lang="en"><body><table role="presentation"><tr><td><img src="https://cdn.example/hero.png" width="300" height="100" alt="Spring sale">
      <h1 style="color:#111111">Spring sale</h1><p style="color:#333333;background:#ffffff">Everything 20% off. <a href="https://acme.example/sale" style="color:#0645ad">See the sale</a></p></td></tr></table></body></html>`,
  });
  const careless = await inbox.waitForMessage({ subject: 'Careless' });
  const error = await expect(careless).toBeAccessible().then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toContain('image-alt (critical, light and dark)');
  expect(error?.message).toContain('https://dequeuniversity.com/rules/axe/');
  for (const rule of ['color-contrast', 'inboxkit-layout-table', 'html-has-lang', 'link-name']) expect(error?.message).toContain(`${rule} (`);
  expect(error?.message).toMatch(/color-contrast[\s\S]*Low contrast text/);

  await expect(careless).toBeAccessible({ rules: ['heading-order', 'duplicate-id'] });
  await expect(careless).toBeAccessible({ impact: 'critical', disableRules: ['image-alt', 'link-name', 'html-has-lang', 'color-contrast'] });
  await expect(await inbox.waitForMessage({ subject: 'Careful' })).toBeAccessible();
});

test('contrast is audited in dark mode too: dark styles with unreadable text fail in dark only', { tag: '@heavy' }, async ({ inbox, send }) => {
  const html = `<html lang="en"><head><style>@media (prefers-color-scheme: dark){body{background:#000000!important} p{color:#222222!important}}</style></head><body style="background:#ffffff"><p style="color:#222222">Readable by day</p></body></html>`;
  await send({ to: inbox.address, subject: 'Night', html });
  const message = await inbox.waitForMessage({ subject: 'Night' });
  await expect(message).toBeAccessible({ colorSchemes: ['light'] });
  const error = await expect(message).toBeAccessible().then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(error?.message).toContain('color-contrast (serious, dark)');
});

test('bad input is refused clearly: an unknown client, a width out of range, an empty message', async ({ inbox, send }) => {
  await send({ to: inbox.address, subject: 'Fine', html: '<p>Hi</p>' });
  const message = await inbox.waitForMessage({ subject: 'Fine' });
  await expect(message.render({ client: 'gmial.ios' })).rejects.toThrow(/unknown email client "gmial\.ios" \(did you mean "gmail"\?\)/);
  await expect(message.render({ client: 'gmail' })).rejects.toThrow(/"gmail" stands for 4 clients .*name one platform/);
  await expect(message.render({ width: 150 })).rejects.toThrow(/width must be a whole number of CSS pixels from 200 to 2000.*got 150/);
  await expect(message.render({ width: 2500 })).rejects.toThrow(/got 2500/);
  await expect(expect(message).toHaveScreenshot({ widths: [] })).rejects.toThrow(/widths is empty/);

  const empty = await renderEmail(async () => Promise.reject(new Error('the browser is not reached')), { subject: '', html: null, text: null, original: async () => parseOriginal('Subject: x\r\n\r\n'), otp: () => '', otps: () => [] }).then(
    () => null,
    (e: unknown) => e as Error,
  );
  expect(empty?.message).toMatch(/the message is empty \(no HTML and no text body\)/);
});

for (const [name, type] of [
  ['Firefox', firefox],
  ['WebKit', webkit],
] as const) {
  test(`renders in ${name} where it is installed`, async () => {
    let path = '';
    try {
      path = type.executablePath();
    } catch {}
    test.skip(path === '' || !existsSync(path), `${name} is not installed here (npx playwright install ${type.name()})`);
    const browser = await type.launch();
    try {
      const raw = new TextEncoder().encode('Subject: Hi\r\nContent-Type: text/html\r\n\r\n<p>Hello 2026-11-25</p>\r\n');
      const render = await renderEmail(async () => browser, { subject: 'Hi', html: null, text: null, original: async () => parseOriginal(raw), otp: () => '', otps: () => [] }, { width: 'mobile' });
      expect(render.width).toBe(375);
      expect(render.dynamic).toEqual([{ kind: 'date', text: '2026-11-25' }]);
      await render.close();
    } finally {
      await browser.close();
    }
  });
}
