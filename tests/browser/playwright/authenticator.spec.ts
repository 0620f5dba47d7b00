/**
 * `authenticator.enroll(locator)` in Chromium: the QR code is read from an
 * `img`, a `canvas` a page script drew, and an inline `svg` (made by the
 * `qrcode` library, as apps make them); the secret or URI from text and from
 * an input's value; and a locator that shows no QR code fails with an error
 * that says what it found. Codes follow the browser's clock when asked to.
 */
import QRCode from 'qrcode';
import { test, expect, AuthenticatorError } from '../../../src/playwright/index.ts';
import type { Page } from '@playwright/test';

const URI = 'otpauth://totp/Acme%20Corp:alice%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Acme%20Corp&algorithm=SHA256&digits=8&period=60';

async function show(page: Page, body: string): Promise<void> {
  await page.setContent(`<!doctype html><html><body style="margin:24px;font:16px system-ui">${body}</body></html>`);
}

function expectAcme(device: { issuer?: string | undefined; account?: string | undefined; algorithm: string; digits: number; period: number; secret: string; uri: string }): void {
  expect([device.issuer, device.account, device.algorithm, device.digits, device.period]).toEqual(['Acme Corp', 'alice@example.com', 'SHA256', 8, 60]);
  expect(device.secret).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
}

test.describe('enrolment from a QR code', () => {
  test('from an img (a PNG data URL, scaled by CSS)', async ({ page, authenticator }) => {
    const png = await QRCode.toDataURL(URI, { margin: 2, scale: 4 });
    await show(page, `<p>Scan this code</p><img alt="QR code" src="${png}" style="width:230px">`);
    const device = await authenticator.enroll(page.getByRole('img', { name: 'QR code' }));
    expectAcme(device);
    expect(device.uri).toBe(URI);
  });

  test('from a canvas a page script drew', async ({ page, authenticator }) => {
    const qr = QRCode.create(URI, {});
    await show(page, '<canvas id="qr" width="300" height="300"></canvas>');
    await page.evaluate(({ size, cells }) => {
      const canvas = document.getElementById('qr') as HTMLCanvasElement;
      const context = canvas.getContext('2d')!;
      const cell = Math.floor(canvas.width / (size + 8));
      context.fillStyle = '#fff';
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.fillStyle = '#123';
      cells.forEach((dark, i) => dark && context.fillRect((4 + (i % size)) * cell, (4 + Math.floor(i / size)) * cell, cell, cell));
    }, { size: qr.modules.size, cells: Array.from(qr.modules.data, (v) => v === 1) });
    expectAcme(await authenticator.enroll(page.locator('#qr')));
  });

  test('from an inline svg drawn edge to edge (no quiet zone)', async ({ page, authenticator }) => {
    const svg = await QRCode.toString(URI, { type: 'svg', margin: 0 });
    await show(page, `<div style="width:200px" data-testid="qr">${svg}</div>`);
    expectAcme(await authenticator.enroll(page.getByTestId('qr').locator('svg')));
  });

  test('from an element that wraps the QR code with a caption', async ({ page, authenticator }) => {
    const svg = await QRCode.toString('otpauth://hotp/Bank:bob?secret=JBSWY3DPEHPK3PXP&counter=3', { type: 'svg', margin: 1 });
    await show(page, `<figure id="qr" style="width:220px">${svg}<figcaption>Scan with your app</figcaption></figure>`);
    const device = await authenticator.enroll(page.locator('#qr'));
    expect([device.type, device.issuer, device.account, device.counter]).toEqual(['hotp', 'Bank', 'bob', 3]);
  });
});

test.describe('enrolment from text', () => {
  test('from a secret shown in groups', async ({ page, authenticator }) => {
    await show(page, '<p id="key">Can\'t scan it? Enter this key: <code>GEZD GNBV GY3T QOJQ GEZD GNBV GY3T QOJQ</code></p>');
    const device = await authenticator.enroll(page.locator('#key'));
    expect(device.secret).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect([device.algorithm, device.digits, device.period]).toEqual(['SHA1', 6, 30]);
  });

  test('from a URI shown as text, and from an input\'s value', async ({ page, authenticator }) => {
    await show(page, `<p id="uri">${URI.replaceAll('&', '&amp;')}</p><input aria-label="Setup key" readonly value="${URI.replaceAll('&', '&amp;')}">`);
    expectAcme(await authenticator.enroll(page.locator('#uri')));
    expectAcme(await authenticator.enroll(page.getByLabel('Setup key')));
    expect(authenticator.devices).toHaveLength(2);
  });
});

test.describe('what is not an enrolment', () => {
  test('an element with no QR code: the error says what it found', async ({ page, authenticator }) => {
    await show(page, '<div id="welcome">Welcome back, Alice</div>');
    const error = await authenticator.enroll(page.locator('#welcome')).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticatorError);
    expect((error as Error).message).toContain('locator(\'#welcome\') shows no QR code, otpauth:// URI or base32 secret: it is a <div> of');
    expect((error as Error).message).toContain('text "Welcome back, Alice"');
  });

  test('an image that is not a QR code: the error names it and the screenshot is attached', async ({ page, authenticator }, testInfo) => {
    await show(page, '<svg id="logo" width="120" height="120"><circle cx="60" cy="60" r="50" fill="#c00"/></svg>');
    await expect(authenticator.enroll(page.locator('#logo'))).rejects.toThrow(/found no QR code in the screenshot of locator\('#logo'\): it is a <svg> of 120×120 px/);
    expect(testInfo.attachments.map((a) => a.name)).toContain('authenticator: no QR code found');
  });

  test('a QR code that is not an enrolment (a web link)', async ({ page, authenticator }) => {
    await show(page, `<img id="qr" src="${await QRCode.toDataURL('https://example.com/download-the-app', { margin: 2, scale: 4 })}">`);
    await expect(authenticator.enroll(page.locator('#qr'))).rejects.toThrow(/reads "https:\/\/example.com\/download-the-app", which is not an otpauth:\/\/ URI/);
  });

  test('a QR code with an unsupported algorithm', async ({ page, authenticator }) => {
    await show(page, `<img id="qr" src="${await QRCode.toDataURL('otpauth://totp/A:b?secret=JBSWY3DPEHPK3PXP&algorithm=MD5', { margin: 2, scale: 4 })}">`);
    await expect(authenticator.enroll(page.locator('#qr'))).rejects.toThrow(/the algorithm "MD5" is not supported/);
  });
});

test('codes can follow the browser\'s clock under page.clock', async ({ page, authenticator }) => {
  await page.clock.install({ time: new Date('2030-01-01T00:00:58Z') });
  await show(page, '<p>ok</p>');
  // #region browser-clock
  const device = await authenticator.enroll(URI.replace('period=60', 'period=30'), {
    clock: { now: () => page.evaluate(() => Date.now()), sleep: (ms) => page.clock.runFor(ms) },
  });
  // #endregion
  const first = await device.code();
  const firstAt = await page.evaluate(() => Date.now());
  expect(first).toBe(device.codeAt(firstAt));
  // 2 s before the step's end is under minRemaining: the browser's clock was run on to the next step.
  expect(firstAt - Date.parse('2030-01-01T00:01:00Z')).toBeGreaterThanOrEqual(0);
  expect(firstAt - Date.parse('2030-01-01T00:01:00Z')).toBeLessThan(5_000);
  const second = await device.code();
  expect(second).toBe(device.codeAt(await page.evaluate(() => Date.now())));
  expect(second).not.toBe(first);
});
