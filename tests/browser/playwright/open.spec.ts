/**
 * `inbox.open(page, message)` in Chromium: the email is shown without network
 * access, and a click on one of its links navigates the page normally.
 */
import { expect } from '../../../src/playwright/index.ts';
import { test } from '../email-fixtures.ts';

test('an opened email loads nothing from the network, and clicking its link navigates there with the site loading normally', async ({ page, context, inbox, site, send }) => {
  await send({
    to: inbox.address,
    subject: 'Confirm your email',
    html: `<div style="background-image:url(${site.url}/background.png)">
      <img src="${site.url}/pixel.gif" width="1" height="1" alt="">
      <p>Welcome! <a href="${site.url}/confirm" target="_blank">Confirm email</a></p>
    </div>`,
  });
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' });

  const email = await inbox.open(page, message);
  await expect(email.getByRole('link', { name: 'Confirm email' })).toBeVisible();
  expect(site.requests).toEqual([]);

  await email.getByRole('link', { name: 'Confirm email' }).click();
  await expect(page).toHaveURL(`${site.url}/confirm`);
  await expect(page.getByRole('heading')).toHaveText('Confirmed');
  await expect.poll(() => site.requests).toContain('/logo.png');
  expect(site.requests).not.toContain('/pixel.gif');
  expect(site.requests).not.toContain('/background.png');
  expect(context.pages()).toHaveLength(1);
});

test('a message without an HTML body is shown as its text', async ({ page, inbox, send }) => {
  await send({ to: inbox.address, subject: 'Plain', text: 'Your code is 123456 <not a tag>' });
  const message = await inbox.waitForMessage({ subject: 'Plain' });
  const email = await inbox.open(page, message);
  await expect(email).toContainText('Your code is 123456 <not a tag>');
});

test('an email can be opened in a page that was on another site, and relative links do not lead back there', async ({ page, inbox, site, send }) => {
  await page.goto(`${site.url}/confirm`);
  await send({ to: inbox.address, subject: 'Relative', html: '<p><a href="/confirm">Relative link</a></p>' });
  const message = await inbox.waitForMessage({ subject: 'Relative' });
  // The browser asks the site for its icon on its own, whenever it gets to it: that request is not the email's.
  const ownRequests = () => site.requests.filter((url) => url !== '/favicon.ico');
  const before = ownRequests().length;
  await inbox.open(page, message);
  expect(page.url()).toBe('about:blank');
  expect(ownRequests(), `requests the site saw: ${JSON.stringify(site.requests)}`).toHaveLength(before);
});

test.describe('with the Content-Security-Policy of the rendered email bypassed', () => {
  test.use({ bypassCSP: true });

  test('request blocking alone still keeps the email off the network', async ({ page, inbox, site, send }) => {
    await send({
      to: inbox.address,
      subject: 'Tracked',
      html: `<img src="${site.url}/pixel.gif" alt=""><p style="background:url(${site.url}/background.png)">Hi <a href="${site.url}/confirm">Confirm email</a></p>`,
    });
    const message = await inbox.waitForMessage({ subject: 'Tracked' });
    // Chromium also refuses loopback subresources to an opaque origin, so what proves the
    // blocking is how each request failed: aborted by the route, not by the browser's own rules.
    const failures = new Map<string, string | undefined>();
    page.on('requestfailed', (request) => failures.set(new URL(request.url()).pathname, request.failure()?.errorText));
    const email = await inbox.open(page, message);
    await expect(email.getByRole('link', { name: 'Confirm email' })).toBeVisible();
    // A request the page makes itself is blocked too (CSP would otherwise be what stops it).
    const fetched = await page.evaluate(async (url) => fetch(url).then(() => 'loaded', () => 'blocked'), `${site.url}/fetch`);
    expect(fetched).toBe('blocked');
    expect(site.requests).toEqual([]);
    const blocked = expect.stringMatching(/^net::ERR_BLOCKED_BY_CLIENT/);
    await expect.poll(() => Object.fromEntries(failures)).toEqual({ '/pixel.gif': blocked, '/background.png': blocked, '/fetch': blocked });

    await email.getByRole('link', { name: 'Confirm email' }).click();
    await expect(page.getByRole('heading')).toHaveText('Confirmed');
  });
});
