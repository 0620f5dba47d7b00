/**
 * Would it reach the inbox? Sender authentication against a test DNS, the
 * content rules mailbox providers enforce, a real spam filter's score, and
 * one-click unsubscribe — each as a one-line assertion, each explained in the
 * report. The service scores spam with the scanner `inboxkit serve` was
 * started with (--spam-check, or INBOXKIT_SPAM_CHECK; see docs/email-checks.md).
 */
import type { Page } from '@playwright/test';
import { test as base, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'
import { exampleDns } from './app/dkim.ts';

// #region dns
// The test DNS that sender authentication reads: the app's DKIM key, SPF and DMARC.
// (For a whole run, set it in playwright.config: use: { inboxkit: { baseUrl, dns } }.)
const test = base.extend({
  inboxkit: [async ({ inboxkit }, use) => use({ ...inboxkit, dns: exampleDns() }), { scope: 'worker' }],
});
// #endregion

async function signUp(page: Page, address: string): Promise<void> {
  await page.goto('/signup');
  await page.getByLabel('Email').fill(address);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create account' }).click();
}

test('the confirmation email is DKIM-signed, and passes SPF and DMARC', async ({ page, inbox }) => {
  await signUp(page, inbox.address);
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });

  // #region authentication
  // DKIM, SPF and DMARC, checked offline against the test DNS of the config.
  await expect(message).toBeAuthenticated();

  // The details, and what a receiving server would conclude if the key were not published:
  const withoutKey = await message.authentication({ dns: { 'acme2026._domainkey.acme.example': { A: ['127.0.0.1'] } } });
  expect(withoutKey.dkim[0]?.reason).toMatch(/^no key at acme2026\._domainkey\.acme\.example in the test DNS/);
  // #endregion
  expect(message.envelope?.mailFrom).toBe('no-reply@acme.example');
});

test('the newsletter passes the content rules and unsubscribes in one click', async ({ page, inbox }) => {
  await page.goto('/newsletter');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Subscribe' }).click();
  const newsletter = await inbox.waitForMessage({ subject: /^Acme Weekly/ });

  // #region content
  // List-Unsubscribe with RFC 8058 one-click, alt texts, size, text part, headers …
  await expect(newsletter).toPassContentChecks();
  // #endregion

  // #region unsubscribe
  // What Gmail's "Unsubscribe" button does: a POST to the List-Unsubscribe URI, without a page or a login.
  await page.goto(`/newsletter/status?email=${encodeURIComponent(inbox.address)}`);
  await expect(page.getByRole('status')).toHaveText(`${inbox.address} is subscribed to Acme Weekly.`);
  await newsletter.unsubscribe();
  await page.reload();
  await expect(page.getByRole('status')).toHaveText(`${inbox.address} is not subscribed to Acme Weekly.`);
  // #endregion
});

test('the sign-up email scores well with SpamAssassin', async ({ page, inbox }) => {
  test.skip(!process.env.INBOXKIT_SPAM_CHECK, 'no spam scanner: start spamd and set INBOXKIT_SPAM_CHECK=spamd://127.0.0.1:783 before the run (see docs/email-checks.md)');
  await signUp(page, inbox.address);
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });

  // #region spam
  // The score a receiving server would give: rules that fire only for local mail are not counted.
  await expect(message).toPassSpamCheck({ maxScore: 2 });
  // #endregion
});

test('one call runs every check, each attaching its table to the report', async ({ page, inbox }) => {
  await signUp(page, inbox.address);
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });

  // #region all
  await expect(message).toPassEmailChecks({
    // The confirmation link is single-use: the link check would spend it.
    links: { exclude: ['/confirm'] },
    // Gmail ignores target="_blank", harmlessly: accepted by its caniemail slug.
    compatibility: { clients: ['apple-mail', 'gmail.desktop-webmail'], ignore: ['html-target'] },
  });
  // #endregion
});
