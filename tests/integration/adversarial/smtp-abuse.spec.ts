/**
 * SMTP limits and abuse, as raw socket conversations: exact size limit,
 * recipient cap, over-long lines, pipelined garbage, the fake end-of-data
 * sequences of SMTP smuggling, slowloris and the connection cap.
 */
import { RawSmtp, dataOf, expect, figure, rawMessage, sendRaw, sha256, test } from './helpers.ts';
import type { Harness } from './helpers.ts';

const LIMIT = 20_000;
test.use({ harnessOptions: { maxMessageBytes: LIMIT, smtpSocketTimeoutMs: 400, smtpMaxConnections: 40 } });

/** A message of exactly `size` bytes (CRLF endings, no line starting with a dot). */
function messageOfSize(to: string, subject: string, size: number): string {
  const head = rawMessage({ to, subject, body: '' });
  const line = `${'x'.repeat(76)}\r\n`;
  let body = '';
  while (head.length + body.length + line.length <= size) body += line;
  const rest = size - head.length - body.length;
  // The last line: filler, ending in CRLF (rest >= 2 unless exact).
  if (rest >= 2) body += `${'y'.repeat(rest - 2)}\r\n`;
  else body += 'z'.repeat(rest);
  const raw = head + body;
  if (raw.length !== size) throw new Error(`built ${raw.length} bytes, wanted ${size}`);
  return raw;
}

async function storedRaw(h: Harness, inbox: { id: string; token: string }): Promise<Buffer[]> {
  const list = await h.listAll(inbox as never);
  const out: Buffer[] = [];
  for (const m of list) {
    const res = await fetch(`${h.server.apiUrl}/messages/${m.id}/raw`, { headers: { 'x-inbox-token': inbox.token } });
    out.push(Buffer.from(await res.arrayBuffer()));
  }
  return out;
}

test('the size limit is exact: a message of the limit is stored byte-identical, one byte more is refused with 552, an oversized SIZE at MAIL FROM too', async ({ harness }) => {
  const inbox = await harness.createInbox();
  const exact = messageOfSize(inbox.address, 'exact', LIMIT);
  const over = messageOfSize(inbox.address, 'over', LIMIT + 1);
  expect((await sendRaw(harness.server.smtpPort, 'a@adversary.test', [inbox.address], exact)).code).toBe(250);
  const refused = await sendRaw(harness.server.smtpPort, 'a@adversary.test', [inbox.address], over);
  expect(refused.code).toBe(552);

  const smtp = await RawSmtp.connect(harness.server.smtpPort);
  const ehlo = await smtp.hello();
  expect(ehlo.lines.some((l) => l.includes(`SIZE ${LIMIT}`))).toBe(true);
  const declaredOver = await smtp.command(`MAIL FROM:<a@adversary.test> SIZE=${LIMIT + 1}`);
  expect(declaredOver.code).toBe(552);
  expect((await smtp.command(`MAIL FROM:<a@adversary.test> SIZE=${LIMIT}`)).code).toBe(250);
  smtp.end();

  const stored = await storedRaw(harness, inbox);
  expect(stored).toHaveLength(1);
  expect(sha256(stored[0]!)).toBe(sha256(Buffer.from(exact, 'latin1')));
  figure('smtp size', `${LIMIT} bytes stored byte-identical; ${LIMIT + 1} refused 552; SIZE=${LIMIT + 1} refused 552 at MAIL FROM`);
});

test('the 101st recipient is refused with 452 and the message goes to the 100 accepted ones', async ({ harness }) => {
  const inboxes = await Promise.all(Array.from({ length: 101 }, () => harness.createInbox()));
  const smtp = await RawSmtp.connect(harness.server.smtpPort);
  await smtp.hello();
  expect((await smtp.command('MAIL FROM:<a@adversary.test>')).code).toBe(250);
  const codes: number[] = [];
  for (const inbox of inboxes) codes.push((await smtp.command(`RCPT TO:<${inbox.address}>`)).code);
  expect(codes.slice(0, 100).every((c) => c === 250)).toBe(true);
  expect(codes[100]).toBe(452);
  expect((await smtp.command('DATA')).code).toBe(354);
  smtp.write(dataOf(rawMessage({ to: 'many@adversary.test', subject: 'to a hundred' })));
  expect((await smtp.reply()).code).toBe(250);
  smtp.end();
  const counts = await Promise.all(inboxes.map(async (i) => (await harness.listAll(i)).length));
  expect(counts.slice(0, 100)).toEqual(Array(100).fill(1));
  expect(counts[100]).toBe(0);
  figure('smtp recipients', '100 accepted and stored once each; the 101st refused 452');
});

test('over-long lines: a 5 KB address is refused and the session goes on, a 100 KB command line ends the session with 421, a 15 KB header line is stored intact', async ({ harness }) => {
  const inbox = await harness.createInbox();
  const smtp = await RawSmtp.connect(harness.server.smtpPort);
  await smtp.hello();
  const longAddress = await smtp.command(`MAIL FROM:<${'a'.repeat(5000)}@adversary.test>`);
  expect(longAddress.code).toBeGreaterThanOrEqual(500);
  expect((await smtp.command('MAIL FROM:<a@adversary.test>')).code).toBe(250);
  smtp.write(`RCPT TO:<${'b'.repeat(100_000)}@adversary.test>\r\n`);
  const tooLong = await smtp.reply();
  expect(tooLong.code).toBe(421);
  expect(tooLong.text).toMatch(/too long/i);
  await smtp.closed;

  const raw = rawMessage({ to: inbox.address, subject: 'long header', headers: [`X-Long: ${'h'.repeat(15_000)}`] });
  expect((await sendRaw(harness.server.smtpPort, 'a@adversary.test', [inbox.address], raw)).code).toBe(250);
  const [stored] = await storedRaw(harness, inbox);
  expect(stored!.toString('latin1')).toBe(raw);
  figure('smtp long lines', `${longAddress.code} for a 5 KB address (session goes on); 421 and closed for a 100 KB command line; a 15 KB header line stored intact`);
});

test('pipelined garbage is answered with errors and cut off, and stores nothing; the intake keeps serving others', async ({ harness }) => {
  const inbox = await harness.createInbox();
  const garbage = [
    '\x00\x01\x02\xff\xfe',
    'MAIL FROM:<<<>>>',
    `RCPT TO:<${inbox.address}>`,
    'DATA',
    'Subject: not a message',
    '.',
    ...Array.from({ length: 20 }, (_, i) => `XYZZY${i} ${'%'.repeat(i)}`),
  ].join('\r\n');
  const codesOf = async (payload: string) => {
    const smtp = await RawSmtp.connect(harness.server.smtpPort);
    await smtp.hello();
    smtp.write(`${payload}\r\n`);
    const codes: number[] = [];
    for (;;) {
      try {
        codes.push((await smtp.reply()).code);
      } catch {
        break;
      }
    }
    await smtp.closed;
    return codes;
  };
  const codes = await codesOf(garbage);
  expect(codes.filter((c) => c === 250 || c === 354)).toEqual([]);
  expect(codes.filter((c) => c >= 500).length).toBeGreaterThanOrEqual(9);
  expect(codes.at(-1)).toBe(421);
  const http = await codesOf('GET / HTTP/1.1\r\nHost: x\r\n');
  expect(http).toEqual([421]);
  expect(await harness.listAll(inbox)).toHaveLength(0);
  expect((await sendRaw(harness.server.smtpPort, 'a@adversary.test', [inbox.address], rawMessage({ to: inbox.address, subject: 'after garbage' }))).code).toBe(250);
  expect(await harness.listAll(inbox)).toHaveLength(1);
  figure('smtp garbage', `${codes.length} replies to ${garbage.split('\r\n').length} pipelined garbage lines (${[...new Set(codes)].join(', ')}), then closed; HTTP on the SMTP port: 421; 0 stored; next sender served`);
});

const FAKE_ENDS: Array<[string, string]> = [
  ['LF . LF', '\n.\n'],
  ['LF . CRLF', '\n.\r\n'],
  ['CR . CRLF', '\r.\r\n'],
  ['CRLF . CR', '\r\n.\r'],
  ['CRLF . LF', '\r\n.\n'],
  ['CR . LF', '\r.\n'],
];

test('each fake end-of-data sequence of SMTP smuggling, followed by a second MAIL FROM, yields exactly one stored message', async ({ harness }) => {
  let stored = 0;
  for (const [name, fake] of FAKE_ENDS) {
    const inbox = await harness.createInbox();
    const smtp = await RawSmtp.connect(harness.server.smtpPort);
    await smtp.hello();
    expect((await smtp.command('MAIL FROM:<legit@adversary.test>')).code).toBe(250);
    expect((await smtp.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);
    expect((await smtp.command('DATA')).code).toBe(354);
    const smuggled = `MAIL FROM:<admin@victim.test>\r\nRCPT TO:<${inbox.address}>\r\nDATA\r\nFrom: admin@victim.test\r\nSubject: smuggled\r\n\r\nforged`;
    smtp.write(`From: legit@adversary.test\r\nTo: ${inbox.address}\r\nSubject: legit ${name}\r\n\r\nhello${fake}${smuggled}\r\n.\r\n`);
    const reply = await smtp.reply();
    expect(reply.code, name).toBe(250);
    // The next reply answers NOOP: no reply of a smuggled command is pending.
    const noop = await smtp.command('NOOP');
    expect(noop.code, name).toBe(250);
    expect(noop.text, name).toMatch(/OK/i);
    smtp.end();
    const list = await harness.listAll(inbox);
    expect(list, name).toHaveLength(1);
    expect(list[0]!.subject, name).toBe(`legit ${name}`);
    const [raw] = await storedRaw(harness, inbox);
    // Bare CR and LF were normalised: the stored source has no fake end any more.
    expect(/\r(?!\n)|(?<!\r)\n/.test(raw!.toString('latin1')), name).toBe(false);
    stored += list.length;
  }
  figure('smtp smuggling', `${FAKE_ENDS.length} fake end-of-data sequences → ${stored} stored messages (exactly one each), 0 smuggled`);
});

/** Writes one byte every `everyMs` until the connection closes: never idle, never a whole line. */
function trickle(s: RawSmtp, everyMs: number): void {
  const timer = setInterval(() => {
    if (s.isClosed) clearInterval(timer);
    else s.write('x');
  }, everyMs);
  void s.closed.then(() => clearInterval(timer));
}

test('slowloris connections (silent, a stalled command, a stalled DATA, a byte trickle) are timed out with 421 while a real sender is served', async ({ harness }) => {
  const inbox = await harness.createInbox();
  const silent = await Promise.all(Array.from({ length: 10 }, () => RawSmtp.connect(harness.server.smtpPort)));
  const stalledCommand = await Promise.all(Array.from({ length: 10 }, () => RawSmtp.connect(harness.server.smtpPort)));
  for (const s of stalledCommand) {
    await s.reply();
    s.write('EHLO slo');
  }
  const stalledData = await Promise.all(Array.from({ length: 5 }, () => RawSmtp.connect(harness.server.smtpPort)));
  for (const s of stalledData) {
    await s.hello();
    await s.command('MAIL FROM:<slow@adversary.test>');
    await s.command(`RCPT TO:<${inbox.address}>`);
    await s.command('DATA');
    s.write('Subject: never ends\r\n\r\nhalf a bo');
  }
  // Tricklers: a byte every 100 ms keeps the idle timer (400 ms) from ever firing.
  const trickleCommand = await Promise.all(Array.from({ length: 5 }, () => RawSmtp.connect(harness.server.smtpPort)));
  for (const s of trickleCommand) {
    await s.reply();
    trickle(s, 100);
  }
  const trickleData = await Promise.all(Array.from({ length: 5 }, () => RawSmtp.connect(harness.server.smtpPort)));
  for (const s of trickleData) {
    await s.hello();
    await s.command('MAIL FROM:<slow@adversary.test>');
    await s.command(`RCPT TO:<${inbox.address}>`);
    await s.command('DATA');
    s.write('Subject: trickled\r\n\r\n');
    trickle(s, 100);
  }
  expect((await sendRaw(harness.server.smtpPort, 'a@adversary.test', [inbox.address], rawMessage({ to: inbox.address, subject: 'real' }))).code).toBe(250);
  const all = [...silent, ...stalledCommand, ...stalledData, ...trickleCommand, ...trickleData];
  const started = Date.now();
  const last = await Promise.all(
    all.map(async (s) => {
      let code = 0;
      for (;;) {
        try {
          code = (await s.reply()).code;
        } catch {
          return code;
        }
      }
    }),
  );
  await Promise.all(all.map((s) => s.closed));
  expect(last).toEqual(Array(all.length).fill(421));
  const list = await harness.listAll(inbox);
  expect(list.map((m) => m.subject)).toEqual(['real']);
  figure('smtp slowloris', `${all.length}/${all.length} slow connections (10 silent, 10 stalled mid-command, 5 stalled mid-DATA, 10 trickling a byte every 100 ms) answered 421 and closed (all within ${Date.now() - started} ms at a 400 ms timeout); 1/1 real message stored, 0 partial`);
});

test('the connection cap answers 421 to the connections past it, and frees places when they close', async ({ harness }) => {
  const held = await Promise.all(Array.from({ length: 40 }, () => RawSmtp.connect(harness.server.smtpPort)));
  const greetings = await Promise.all(held.map((s) => s.reply()));
  expect(greetings.every((g) => g.code === 220)).toBe(true);
  const extra = await Promise.all(Array.from({ length: 5 }, () => RawSmtp.connect(harness.server.smtpPort)));
  const refused = await Promise.all(extra.map((s) => s.reply()));
  expect(refused.map((r) => r.code)).toEqual(Array(5).fill(421));
  await Promise.all(extra.map((s) => s.closed));
  for (const s of held) s.write('QUIT\r\n');
  await Promise.all(held.map((s) => s.closed));
  const inbox = await harness.createInbox();
  expect((await sendRaw(harness.server.smtpPort, 'a@adversary.test', [inbox.address], rawMessage({ to: inbox.address, subject: 'after the cap' }))).code).toBe(250);
  figure('smtp connection cap', '40 connections served, 5/5 past the cap answered 421 and closed; served again once places freed');
});
