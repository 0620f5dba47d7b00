/**
 * The default domain in the browser's own `<input type="email">`: the form
 * check a sign-up page gets for free (the HTML standard's "valid email
 * address", as Chromium implements it). The other validators apps use are
 * checked in tests/unit/default-domain.spec.ts.
 */
import { test, expect } from '@playwright/test';
import { DEFAULT_DOMAIN } from '../../../src/wire/defaults.ts';

test('Chromium\'s type=email field accepts an address at the default domain, and refuses one without a domain', async ({ page }) => {
  await page.setContent('<form><label>Email <input type="email" name="email" required></label></form>');
  const field = page.getByLabel('Email');
  await field.fill(`signs-up-w1-k3j9x1@${DEFAULT_DOMAIN}`);
  expect(await field.evaluate((input: HTMLInputElement) => input.checkValidity())).toBe(true);
  await field.fill('signs-up-w1-k3j9x1@');
  expect(await field.evaluate((input: HTMLInputElement) => input.checkValidity())).toBe(false);
});
