import { test, expect } from './fixtures.ts';
import { InboxkitError, LinkNotFoundError, ReceivedMessage } from '../../../src/client/index.ts';

const CONFIRM = 'https://app.acme.example/confirm?token=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6&user=42&utm_source=email&utm_campaign=signup-confirmation-2026';

const HTML = `<!doctype html><html><body>
<table role="presentation" style="width:100%;background:#f4f4f7"><tr><td style="color:#336699">
<p>Hi Ada, thanks for signing up to Acme. Please confirm your email address within 24 hours by clicking the button below.</p>
<p><a href="${CONFIRM.replaceAll('&', '&amp;')}" style="background:#22bc66;color:#ffffff;padding:10px 18px">Confirm email</a></p>
<p>Your verification code is <strong style="font-size:28px;letter-spacing:4px">482913</strong>. It expires at 18:30 on 2026-01-02.</p>
<p>Questions? Call +1 415 555 0134 or write to <a href="mailto:help@acme.example">help@acme.example</a>. Order #100245.</p>
</td></tr></table></body></html>`;

test('links() and otp() read a real quoted-printable HTML email: &amp; and =3D survive, colours, times and phone numbers are not codes', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({
    to: inbox.address,
    subject: 'Confirm your email',
    html: HTML,
    text: `Confirm your email: ${CONFIRM}\nYour verification code is 482913.`,
    textEncoding: 'quoted-printable',
    attachments: [{ filename: 'welcome.txt', content: 'Welcome to Acme!\n', contentType: 'text/plain' }],
  });
  const message = await inbox.waitForMessage({ subject: 'Confirm your email' }, { timeout: 10_000 });
  expect(message).toBeInstanceOf(ReceivedMessage);

  const raw = new TextDecoder().decode(await message.raw());
  expect(raw).toMatch(/Content-Transfer-Encoding: quoted-printable/i);
  expect(raw).toContain('href=3D"https://app.acme.example/confirm?token=3D'); // the wire form really was QP
  expect(raw).toContain('&amp;user=3D42');

  const links = message.links();
  expect(links.map((l) => [l.text, l.href])).toEqual([['Confirm email', CONFIRM]]);
  expect(message.link('Confirm email').href).toBe(CONFIRM);
  expect(message.link({ host: 'app.acme.example' }).href).toBe(CONFIRM);
  expect(new URL(message.link(/confirm/i).href).searchParams.get('user')).toBe('42');
  expect(() => message.link('Unsubscribe')).toThrow(LinkNotFoundError);
  expect(() => message.link('Unsubscribe')).toThrow(/Confirm email/);

  expect(message.otp()).toBe('482913');
  expect(message.otps()[0]?.code).toBe('482913');

  const file = await message.attachment('welcome.txt');
  expect(file.filename).toBe('welcome.txt');
  expect(file.contentType).toMatch(/^text\/plain/);
  expect(new TextDecoder().decode(file.bytes)).toBe('Welcome to Acme!\n');
  expect((await message.attachment(file.id)).size).toBe(file.bytes.byteLength);
  await expect(message.attachment('invoice.pdf')).rejects.toThrow(/no attachment with id or file name "invoice.pdf": its attachments are "welcome.txt"/);
  await expect(message.attachment('invoice.pdf')).rejects.toBeInstanceOf(InboxkitError);

  expect(JSON.parse(JSON.stringify(message))).toEqual(message.data);
  await message.delete();
  expect((await inbox.messages()).items).toEqual([]);
});

test('a text-only email gives its links and code from the text body', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({
    to: inbox.address,
    subject: 'Your sign-in code',
    text: 'Use this code to sign in: 730 519\n\nOr open https://app.acme.example/magic?t=abc&u=1 (valid 15 minutes).',
  });
  const message = await inbox.waitForMessage({ subject: 'sign-in code' }, { timeout: 10_000 });
  expect(message.html).toBeNull();
  expect(message.link().href).toBe('https://app.acme.example/magic?t=abc&u=1');
  expect(message.otp()).toBe('730519');
});
