import { load } from 'cheerio';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { startExampleApp } from '../../../examples/app/app.ts';
import { createWebClient, expect, test, type ReceivedMail } from './fixtures.ts';
import { checkPdf, linkByText, qpEncodedHref, rawPart } from './mail-checks.ts';

const FROM = 'Acme <no-reply@acme.example>';

/** Asserts the HTML part is quoted-printable and a soft line break falls inside `href`. */
function expectLinkSplitBySoftBreak(mail: ReceivedMail, href: string): void {
  const html = rawPart(mail, 'text/html');
  expect(html.headers).toMatch(/^content-transfer-encoding:\s*quoted-printable\s*$/im);
  const encoded = qpEncodedHref(href);
  expect(html.body).not.toContain(encoded);
  expect(html.body.replace(/=\r\n/g, '')).toContain(encoded);
}

function text(html: string): string {
  return load(html)('main').text().replace(/\s+/g, ' ');
}

test('a confirmation link from the sign-up email, decoded from quoted-printable and &amp;, confirms the address and signs the user in', async ({ app, smtp, web }) => {
  const email = 'new.user+signup@example.com';
  const signup = await web.post('/signup', { email, password: 'correct horse battery' });
  expect(text(signup.html)).toContain(`We sent a confirmation link to ${email}.`);

  const mail = await smtp.nextMail(email);
  expect(mail.parsed.subject).toBe('Confirm your email');
  expect(mail.parsed.from?.text).toBe(FROM.replace('Acme', '"Acme"'));
  const link = linkByText(mail, /Confirm email/);
  const url = new URL(link);
  expect(url.origin + url.pathname).toBe(`${app.url}/confirm`);
  expect(url.searchParams.get('email')).toBe(email);
  expect(url.searchParams.get('token')).toMatch(/^[A-Za-z0-9+/]{35}=$/);
  expect(link).toContain('%3D&email=new.user%2Bsignup%40example.com');
  expectLinkSplitBySoftBreak(mail, link);
  expect(mail.parsed.text).toContain(link);
  expect(mail.parsed.html).toContain('src="cid:logo@acme.example"');

  const confirmed = await web.get(link);
  expect(confirmed.status).toBe(200);
  expect(new URL(confirmed.url).pathname).toBe('/dashboard');
  expect(text(confirmed.html)).toContain('Email confirmed');
  expect(text(confirmed.html)).toContain(`Signed in as ${email}`);

  const again = await createWebClient(app.url).get(link);
  expect(again.status).toBe(400);
  expect(text(again.html)).toContain('This confirmation link is not valid');
});

test('the 6-digit code from the sign-in email signs the user in, and is the only 6-digit number among the distractors', async ({ smtp, web }) => {
  const email = 'passwordless@example.com';
  const verifyPage = await web.post('/login', { email });
  expect(new URL(verifyPage.url).pathname).toBe('/login/verify');
  expect(text(verifyPage.html)).toContain(`We emailed a 6-digit code to ${email}.`);

  const mail = await smtp.nextMail(email);
  expect(mail.parsed.subject).toBe('Your sign-in code');
  expect(rawPart(mail, 'text/html').headers).toMatch(/^content-transfer-encoding:\s*quoted-printable\s*$/im);
  const code = /sign in to Acme: (\d{6})\b/.exec(mail.parsed.text ?? '')?.[1];
  expect(code).toMatch(/^\d{6}$/);
  const html = String(mail.parsed.html);
  expect(html).toContain('#1A2B3C');
  expect(html).toContain('+1 (415) 555-0134');
  expect(html).toMatch(/Sunday 22 November 2026|Sunday, 22 November 2026/);
  expect(html).toMatch(/REF-20261122-\d{4}/);
  const visibleSixDigitNumbers = load(html)('body').text().match(/(?<![\d#-])\d{6}(?!\d)/g) ?? [];
  expect(new Set(visibleSixDigitNumbers)).toEqual(new Set([code]));

  const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const wrong = await web.submit(verifyPage, { code: wrongCode });
  expect(wrong.status).toBe(400);
  expect(text(wrong.html)).toContain('That code is not right');

  const signedIn = await web.submit(verifyPage, { code: code! });
  expect(new URL(signedIn.url).pathname).toBe('/dashboard');
  expect(text(signedIn.html)).toContain(`Signed in as ${email}`);
});

test('a password reset link sets a new password that signs the user in, and the old password and the used link stop working', async ({ app, smtp, web }) => {
  const email = 'forgetful@example.com';
  await web.post('/signup', { email, password: 'old password 1' });
  await smtp.nextMail(email, 'Confirm your email');

  const sent = await web.post('/forgot', { email });
  expect(text(sent.html)).toContain('The link expires in 15 minutes.');
  const mail = await smtp.nextMail(email, 'Reset your password');
  expect(mail.parsed.text).toContain('expires in 15 minutes');
  const link = linkByText(mail, /Reset password/);
  expect(link.startsWith(`${app.url}/reset?token=`)).toBe(true);
  expectLinkSplitBySoftBreak(mail, link);

  const resetPage = await web.get(link);
  expect(resetPage.status).toBe(200);
  expect(load(resetPage.html)('label[for=password]').text()).toBe('New password');
  const updated = await web.submit(resetPage, { password: 'new password 2' });
  expect(updated.status).toBe(200);
  expect(text(updated.html)).toContain('Password updated');

  const withNew = await createWebClient(app.url).post('/signin', { email, password: 'new password 2' });
  expect(new URL(withNew.url).pathname).toBe('/dashboard');
  expect(text(withNew.html)).toContain(`Signed in as ${email}`);

  const withOld = await createWebClient(app.url).post('/signin', { email, password: 'old password 1' });
  expect(withOld.status).toBe(401);
  expect(text(withOld.html)).toContain('Incorrect email or password');

  const reused = await web.get(link);
  expect(reused.status).toBe(400);
  expect(text(reused.html)).toContain('password reset link is not valid');
});

test('a password reset link opened after its lifetime shows that it has expired and changes nothing', async ({ app, smtp, web, clock }) => {
  const email = 'slow.reader@example.com';
  await web.post('/signup', { email, password: 'first password' });
  await web.post('/forgot', { email });
  const link = linkByText(await smtp.nextMail(email, 'Reset your password'), /Reset password/);

  clock.advance(15 * 60 * 1000 - 1);
  const stillValid = await web.get(link);
  expect(stillValid.status).toBe(200);

  clock.advance(1);
  const expired = await web.get(link);
  expect(expired.status).toBe(410);
  expect(text(expired.html)).toContain('This link has expired');
  const lateSubmit = await web.submit(stillValid, { password: 'sneaky password' });
  expect(lateSubmit.status).toBe(410);

  const url = new URL(link);
  const tampered = await web.get(`${app.url}/reset?token=${encodeURIComponent(url.searchParams.get('token')!)}&email=${encodeURIComponent('other@example.com')}`);
  expect(tampered.status).toBe(400);
});

test('the invoice email carries a valid hand-built PDF named invoice-<n>.pdf with the invoice number and amount', async ({ smtp, web }) => {
  const email = 'billing@example.com';
  const sent = await web.post('/billing', { email });
  expect(text(sent.html)).toContain(`We emailed invoice INV-1001 (USD 49.00) to ${email}.`);

  const mail = await smtp.nextMail(email);
  expect(mail.parsed.subject).toBe('Your Acme invoice INV-1001');
  expect(rawPart(mail, 'text/html').headers).toMatch(/^content-transfer-encoding:\s*quoted-printable\s*$/im);
  const pdf = mail.parsed.attachments.find((a) => a.filename === 'invoice-1001.pdf');
  expect(pdf?.contentType).toBe('application/pdf');
  expect(pdf?.contentDisposition).toBe('attachment');
  const facts = checkPdf(pdf!.content);
  expect(facts.objectCount).toBe(7);
  expect(facts.texts).toContain('Invoice INV-1001');
  expect(facts.texts).toContain('Amount due: USD 49.00');
  expect(facts.texts).toContain(`Billed to: ${email}`);

  const logo = mail.parsed.attachments.find((a) => a.cid === 'logo@acme.example');
  expect(logo?.contentType).toBe('image/png');
  expect(logo?.content.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

  await web.post('/billing', { email });
  const second = await smtp.nextMail(email);
  expect(second.parsed.attachments.map((a) => a.filename)).toContain('invoice-1002.pdf');
});

test('newsletter links go through the app click tracker, which redirects to the article, and the unsubscribe link works', async ({ app, smtp, web }) => {
  const email = 'reader@example.com';
  const subscribed = await web.post('/newsletter', { email });
  expect(text(subscribed.html)).toContain(`We sent this week's issue of Acme Weekly to ${email}.`);

  const mail = await smtp.nextMail(email);
  expect(mail.parsed.subject).toBe('Acme Weekly — faster builds, simpler pricing');
  const tracked = linkByText(mail, /Read more/);
  const trackedUrl = new URL(tracked);
  expect(trackedUrl.origin + trackedUrl.pathname).toBe(`${app.url}/t/click`);
  const target = trackedUrl.searchParams.get('u')!;
  expect(target).toBe(`${app.url}/articles/faster-builds?utm_source=newsletter&utm_medium=email&utm_campaign=weekly-48`);
  expect(trackedUrl.searchParams.get('m')).toBeTruthy();
  expectLinkSplitBySoftBreak(mail, tracked);

  const redirect = await fetch(tracked, { redirect: 'manual' });
  expect(redirect.status).toBe(302);
  expect(redirect.headers.get('location')).toBe(target);
  const article = await web.get(tracked);
  expect(article.url).toBe(target);
  expect(load(article.html)('h1').text()).toBe('Builds are now twice as fast');

  trackedUrl.searchParams.set('u', 'https://evil.example/');
  const forged = await fetch(trackedUrl, { redirect: 'manual' });
  expect(forged.status).toBe(400);

  const footer = load(String(mail.parsed.html))('body').text();
  expect(footer).toMatch(/https:\/\/nam12\.safelinks\.protection\.outlook\.com\/\?url=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Ft%2Fclick%3Fu%3D/);

  const unsubscribe = linkByText(mail, /^Unsubscribe$/);
  const topHeaders = mail.raw.slice(0, mail.raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  expect(topHeaders).toContain(`List-Unsubscribe: <${unsubscribe}>`);
  expect(topHeaders).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
  const confirmPage = await web.get(unsubscribe);
  const done = await web.submit(confirmPage, {});
  expect(load(done.html)('h1').text()).toBe('You have been unsubscribed');
});

test('when the SMTP server cannot be reached, the page says the email was not sent and which SMTP address to fix', async () => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const closedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));

  const app = await startExampleApp({ port: 0, smtpPort: closedPort });
  try {
    const page = await createWebClient(app.url).post('/login', { email: 'nobody@example.com' });
    expect(page.status).toBe(502);
    expect(text(page.html)).toContain(`through SMTP 127.0.0.1:${closedPort} failed`);
    expect(text(page.html)).toContain('SMTP_PORT');
  } finally {
    await app.close();
  }
});
