import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { CreatedInbox, Message } from '../../../src/wire/schemas.ts';
import { openProjectStore } from '../../support/backends.ts';
import { expect, startMailServer, test } from './harness.ts';
import type { MailServer } from './harness.ts';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/eml/${name}`, import.meta.url));

let server: MailServer;
test.beforeAll(async () => {
  server = await startMailServer();
});
test.afterAll(async () => {
  await server?.close();
});

/** Sends an .eml fixture as-is to a new inbox and returns the stored message. */
async function deliverFixture(name: string): Promise<{ inbox: CreatedInbox; message: Message }> {
  const inbox = await server.createInbox();
  await server.send({ envelope: { from: 'robot@app.example', to: [inbox.address] }, raw: fixture(name) });
  const [summary] = await server.listMessages(inbox);
  expect(summary, `${name} was stored`).toBeDefined();
  return { inbox, message: await server.getMessage(inbox, summary!.id) };
}

test('a multipart/alternative mail keeps addresses, headers, text and sanitized HTML', async () => {
  const { message } = await deliverFixture('multipart-alternative.eml');
  expect(message.from).toEqual({ address: 'robot@app.example', name: 'Sign-up Robot' });
  expect(message.to).toEqual([{ address: 'user@inboxkit.test', name: 'New User' }]);
  expect(message.cc).toEqual([
    { address: 'audit@app.example', name: '' },
    { address: 'ops@app.example', name: 'Ops Team' },
  ]);
  expect(message.replyTo).toEqual([{ address: 'support@app.example', name: '' }]);
  expect(message.subject).toBe('Confirm your account');
  expect(message.seq).toBe(1);
  expect(message.headers['message-id']).toBe('<alt-1@app.example>');
  expect(message.headers['x-trace']).toBe('first\nsecond');
  expect(message.headers['date']).toBe('Mon, 02 Mar 2026 10:00:00 +0000');
  expect(message.text).toContain('Your code is 482913.');
  expect(message.preview.startsWith('Welcome! Confirm here: https://app.example/confirm?token=abc123')).toBe(true);
  expect(message.html).toContain('href="https://app.example/confirm?token=abc123"');
  expect(message.html).toContain('<b>482913</b>');
  expect(message.html).not.toContain('<script');
  expect(message.hasAttachments).toBe(false);
});

test('an HTML-only mail gets a text body derived from its HTML, and its event handlers removed', async () => {
  const { message } = await deliverFixture('html-only.eml');
  // mailparser's html-to-text: headings upper-cased, links as "text [url]".
  expect(message.text).toContain('RESET YOUR PASSWORD');
  expect(message.text).toContain('this link [https://app.example/reset?t=xyz]');
  expect(message.text).toContain('within 1 hour');
  expect(message.html).toContain('href="https://app.example/reset?t=xyz"');
  expect(message.html).not.toMatch(/onerror|alert/);
});

test('a text-only mail has its text and no HTML', async () => {
  const { message } = await deliverFixture('text-only.eml');
  expect(message.text).toBe('Hello,\nyour one-time code is 937 221.\nBye\n');
  expect(message.html).toBeNull();
});

test('quoted-printable soft breaks and =3D never reach a link; encoded-word subjects are decoded', async () => {
  const { message } = await deliverFixture('quoted-printable.eml');
  const url = 'https://app.example/verify?user=42&token=abcdefghijklmnopqrstuvwxyz0123456789';
  expect(message.subject).toBe('Café verification');
  expect(message.text).toContain(url);
  expect(message.text).toContain('Café crème');
  expect(message.html).toContain(`href="${url.replace('&', '&amp;')}"`);
  expect(message.html).not.toContain('=3D');
  expect(message.text).not.toMatch(/=\r?\n|=3D/);
});

test('a base64 body is decoded', async () => {
  const { message } = await deliverFixture('base64.eml');
  expect(message.html).toContain('href="https://app.example/b64?x=1"');
  expect(message.html).toContain('ünïcödé');
  expect(message.text).toContain('Base64 body with a link');
});

for (const [name, subject, text] of [
  ['iso-8859-1.eml', 'Grüße', 'Grüße aus Köln, ça coûte 5 EUR?'],
  ['koi8-r.eml', 'Привет', 'Ваш код: 5521'],
  ['shift-jis.eml', '確認コード', '確認コードは 123456 です'],
] as const) {
  test(`a mail in a non-UTF-8 charset (${name.replace('.eml', '')}) is decoded to Unicode`, async () => {
    const { message } = await deliverFixture(name);
    expect(message.subject).toBe(subject);
    expect(message.text).toContain(text);
    if (name === 'iso-8859-1.eml') expect(message.from).toEqual({ address: 'juergen@app.example', name: 'Jürgen Müller' });
  });
}

test('an inline cid: image becomes a data: URL a page can load; an unknown cid is dropped', async () => {
  const { inbox, message } = await deliverFixture('inline-image.eml');
  expect(message.attachments).toHaveLength(1);
  const [logo] = message.attachments;
  expect(logo).toMatchObject({ filename: 'logo.png', contentType: 'image/png', contentId: 'logo@app.example', inline: true });
  expect(message.html).toMatch(/<img[^>]+src="data:image\/png;base64,iVBORw0KGgo[^"]+"/);
  expect(message.html).not.toContain('cid:');
  expect(message.html).toContain('alt="missing"');
  // The second read answers from the cache with the same HTML.
  expect((await server.getMessage(inbox, message.id)).html).toBe(message.html);
});

test('attachments round-trip byte for byte with type, length, RFC 6266 disposition and nosniff', async () => {
  const { inbox, message } = await deliverFixture('attachments.eml');
  expect(message.hasAttachments).toBe(true);
  expect(message.attachments.map((a) => [a.filename, a.contentType, a.inline])).toEqual([
    ['invoice.pdf', 'application/pdf', false],
    ['attachment-2.bin', 'application/octet-stream', false],
    ['Résumé €.csv', 'text/csv', false],
  ]);
  const pdf = message.attachments[0]!;
  const res = await server.api(`/messages/${message.id}/attachments/${pdf.id}`, inbox.token);
  expect(res.status).toBe(200);
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(bytes.equals(Buffer.from(Array.from({ length: 1024 }, (_, i) => i % 256)))).toBe(true);
  expect(pdf.size).toBe(1024);
  expect(res.headers.get('content-type')).toBe('application/pdf');
  expect(res.headers.get('content-length')).toBe('1024');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('content-disposition')).toBe(`attachment; filename="invoice.pdf"; filename*=UTF-8''invoice.pdf`);
  const csv = await server.api(`/messages/${message.id}/attachments/${message.attachments[2]!.id}`, inbox.token);
  expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="R_sum_ _.csv"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%E2%82%AC.csv`);
  expect(await csv.text()).toBe('a,b\r\n1,2');
});

test('attachments sent by nodemailer come back byte-exact, whatever their bytes', async () => {
  const inbox = await server.createInbox();
  const blob = randomBytes(300_000);
  await server.send({
    from: 'app@example.com',
    to: inbox.address,
    subject: 'binary',
    text: 'see attached',
    attachments: [
      { filename: 'random.bin', content: blob, contentType: 'application/octet-stream' },
      { filename: 'notes.txt', content: 'line 1\nline 2\n', contentType: 'text/plain' },
    ],
  });
  const [summary] = await server.listMessages(inbox);
  const message = await server.getMessage(inbox, summary!.id);
  const random = message.attachments.find((a) => a.filename === 'random.bin')!;
  const res = await server.api(`/messages/${message.id}/attachments/${random.id}`, inbox.token);
  expect(Buffer.from(await res.arrayBuffer()).equals(blob)).toBe(true);
  expect(res.headers.get('content-length')).toBe(String(blob.length));
});

test('a mail mailparser cannot make sense of is still stored with its raw source, and the server keeps working', async () => {
  const { inbox, message } = await deliverFixture('malformed.eml');
  expect(message.subject).toBe('Broken multipart');
  const raw = await server.api(`/messages/${message.id}/raw`, inbox.token);
  expect(raw.status).toBe(200);
  expect(raw.headers.get('content-type')).toBe('message/rfc822');
  expect(Buffer.from(await raw.arrayBuffer()).equals(fixture('malformed.eml'))).toBe(true);
  const after = await deliverFixture('text-only.eml');
  expect(after.message.subject).toBe('Plain text only');
});

test('the raw source is returned exactly as received', async () => {
  const { inbox, message } = await deliverFixture('iso-8859-1.eml');
  const res = await server.api(`/messages/${message.id}/raw`, inbox.token);
  expect(Buffer.from(await res.arrayBuffer()).equals(fixture('iso-8859-1.eml'))).toBe(true);
  expect(res.headers.get('content-length')).toBe(String(fixture('iso-8859-1.eml').length));
});

test('messages list newest first with a cursor that stays valid while mail arrives and is deleted', async () => {
  const inbox = await server.createInbox();
  for (let i = 1; i <= 5; i++) await server.send({ from: 'app@example.com', to: inbox.address, subject: `m${i}`, text: `${i}` });
  const first = await server.json<{ items: Array<{ id: string; subject: string }>; nextCursor: string | null }>(`/inboxes/${inbox.id}/messages?limit=2`, inbox.token);
  expect(first.items.map((m) => m.subject)).toEqual(['m5', 'm4']);
  expect(first.nextCursor).not.toBeNull();
  // Mail arrives and a listed message is deleted between two pages.
  await server.send({ from: 'app@example.com', to: inbox.address, subject: 'm6', text: '6' });
  await server.json(`/messages/${first.items[1]!.id}`, inbox.token, { method: 'DELETE' });
  const second = await server.json<{ items: Array<{ subject: string }>; nextCursor: string | null }>(
    `/inboxes/${inbox.id}/messages?limit=2&cursor=${first.nextCursor}`,
    inbox.token,
  );
  expect(second.items.map((m) => m.subject)).toEqual(['m3', 'm2']);
  const third = await server.json<{ items: Array<{ subject: string }>; nextCursor: string | null }>(
    `/inboxes/${inbox.id}/messages?limit=2&cursor=${second.nextCursor}`,
    inbox.token,
  );
  expect(third.items.map((m) => m.subject)).toEqual(['m1']);
  expect(third.nextCursor).toBeNull();
});

test('list parameters out of range are a 400 validation_error naming the field', async () => {
  const inbox = await server.createInbox();
  for (const query of ['limit=0', 'limit=101', 'limit=abc', 'cursor=not-a-cursor']) {
    const res = await server.api(`/inboxes/${inbox.id}/messages?${query}`, inbox.token);
    expect(res.status, query).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('validation_error');
    expect(body.error.message).toContain(query.split('=')[0]);
  }
});

test('a deleted message is gone from the list, its reads and its downloads', async () => {
  const { inbox, message } = await deliverFixture('attachments.eml');
  const deleted = await server.api(`/messages/${message.id}`, inbox.token, { method: 'DELETE' });
  expect(await deleted.json()).toEqual({ data: { id: message.id, deleted: true } });
  for (const path of [`/messages/${message.id}`, `/messages/${message.id}/raw`, `/messages/${message.id}/attachments/${message.attachments[0]!.id}`]) {
    const res = await server.api(path, inbox.token);
    expect(res.status, path).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('message_not_found');
  }
  expect(await server.listMessages(inbox)).toEqual([]);
  expect((await server.api(`/messages/${message.id}`, inbox.token, { method: 'DELETE' })).status).toBe(404);
});

test('another inbox\'s token sees none of a message: 404 message_not_found everywhere, as if it did not exist', async () => {
  const { message } = await deliverFixture('attachments.eml');
  const other = await server.createInbox();
  for (const [method, path] of [
    ['GET', `/messages/${message.id}`],
    ['DELETE', `/messages/${message.id}`],
    ['GET', `/messages/${message.id}/raw`],
    ['GET', `/messages/${message.id}/attachments/${message.attachments[0]!.id}`],
  ] as const) {
    const res = await server.api(path, other.token, { method });
    expect(res.status, `${method} ${path}`).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('message_not_found');
  }
  const missing = await server.api('/messages/msg_doesnotexist', other.token);
  expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('message_not_found');
  const list = await server.api(`/inboxes/${message.inboxId}/messages`, other.token);
  expect(list.status).toBe(404);
  expect(((await list.json()) as { error: { code: string } }).error.code).toBe('inbox_not_found');
  const anonymous = await fetch(`${server.apiUrl}/messages/${message.id}`);
  expect(anonymous.status).toBe(401);
});

test('an unknown attachment of a visible message is 404 attachment_not_found', async () => {
  const { inbox, message } = await deliverFixture('attachments.eml');
  const res = await server.api(`/messages/${message.id}/attachments/att_nope`, inbox.token);
  expect(res.status).toBe(404);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('attachment_not_found');
});

test('the OpenAPI document lists the message endpoints, binary responses, and marks /raw as an extension', async () => {
  const doc = (await (await fetch(`${server.apiUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { 'x-inboxkit-extension'?: boolean; responses: Record<string, { content?: Record<string, unknown> }> }>>;
  };
  expect(Object.keys(doc.paths)).toEqual(
    expect.arrayContaining(['/inboxes/{id}/messages', '/messages/{id}', '/messages/{id}/attachments/{attachmentId}', '/messages/{id}/raw']),
  );
  expect(doc.paths['/messages/{id}']?.['delete']).toBeDefined();
  expect(doc.paths['/messages/{id}/raw']?.['get']?.['x-inboxkit-extension']).toBe(true);
  expect(doc.paths['/messages/{id}']?.['get']?.['x-inboxkit-extension']).toBeUndefined();
  expect(Object.keys(doc.paths['/messages/{id}/raw']?.['get']?.responses['200']?.content ?? {})).toEqual(['message/rfc822']);
});

test('a small HTML body is sanitized when it is read, not at intake, and reading it writes nothing', async () => {
  const { store, bus, close } = await openProjectStore();
  const own = await startMailServer({ store, bus });
  try {
    const inbox = await own.createInbox();
    await own.send({ from: 'robot@app.example', to: inbox.address, subject: 'Reset', text: 'Reset: https://app.example/r', html: '<p onclick="steal()">Reset <a href="https://app.example/r">here</a></p>' });
    const [summary] = await own.listMessages(inbox);
    // Intake parsed it and left the sanitizing to its readers.
    expect((await store.findMessage(summary!.id))?.sanitizedHtml).toBeNull();
    const html = '<p>Reset <a href="https://app.example/r" target="_blank" rel="noopener noreferrer">here</a></p>';
    expect((await own.getMessage(inbox, summary!.id)).html).toBe(html);
    expect((await own.getMessage(inbox, summary!.id)).html).toBe(html);
    expect((await store.findMessage(summary!.id))?.sanitizedHtml).toBeNull();
  } finally {
    await own.close();
    await close();
  }
});
