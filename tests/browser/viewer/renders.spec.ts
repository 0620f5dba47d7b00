/**
 * The viewer's "Renders" tab: the email side by side in light, dark and forced
 * dark, at a width preset.
 */
import { expect, test } from './harness.ts';

test('the renders tab shows light, dark and forced dark side by side, and the width presets resize them', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  const html = '<style>body{background:#ffffff} p{color:#111111} @media (prefers-color-scheme: dark){body{background:#000000} p{color:#eeeeee}}</style><p>Hello in the dark</p>';
  await viewer.send({ to: inbox.address, subject: 'Dark aware', html, text: 'Hello' });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Dark aware/ }).click();
  await page.getByRole('tab', { name: 'Renders' }).click();

  const light = page.getByTitle('Message body, Light');
  const dark = page.getByTitle(/Message body, Dark/);
  const forced = page.getByTitle(/Message body, Forced dark/);
  await expect(light).toBeVisible();
  const textColour = async (frame: typeof light) => frame.contentFrame().locator('p').evaluate((p) => getComputedStyle(p).color);
  await expect.poll(() => textColour(light)).toBe('rgb(17, 17, 17)');
  await expect.poll(() => textColour(dark)).toBe('rgb(238, 238, 238)');
  await expect.poll(() => forced.contentFrame().locator('html').evaluate((e) => getComputedStyle(e).filter)).toContain('invert(1)');

  await page.getByRole('button', { name: '600 px' }).click();
  await expect(page.getByRole('button', { name: '600 px' })).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(async () => (await light.boundingBox())!.width).toBeGreaterThan(500);
  await page.getByRole('button', { name: '375 px' }).click();
  await expect.poll(async () => (await dark.boundingBox())!.width).toBeLessThanOrEqual(375);
});
