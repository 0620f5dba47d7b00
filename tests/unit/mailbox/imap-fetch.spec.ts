/**
 * FETCH of a nested message (issue 46): part numbers through multiparts and
 * a message/rfc822 part, MIME headers, HEADER.FIELDS(.NOT), partials, and the
 * ENVELOPE and BODYSTRUCTURE written from the raw source as received.
 */
import { expect, test } from '@playwright/test';
import { parseFetchItems, fetchValues } from '../../../src/server/mailbox/imap/fetch.ts';
import { tokenize } from '../../../src/server/mailbox/imap/parser.ts';
import { wireOf } from '../../../src/server/mailbox/imap/wire.ts';
import { parseMime } from '../../../src/server/mailbox/shared/mime.ts';
import type { MailEntry } from '../../../src/server/mailbox/shared/mailbox.ts';

const RAW = Buffer.from(
  [
    'From: "Help Desk" <help@desk.example>',
    'To: a@x.test, "B, Person" <b@x.test>',
    'Subject: =?UTF-8?Q?Re=3A_ticket?=',
    'Message-ID: <m1@desk.example>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="outer"',
    '',
    'preamble',
    '--outer',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Hello',
    'there',
    '--outer',
    'Content-Type: message/rfc822',
    'Content-Disposition: attachment; filename="fwd.eml"',
    '',
    'From: orig@o.test',
    'Subject: original',
    'Content-Type: multipart/alternative; boundary=inner',
    '',
    '--inner',
    'Content-Type: text/plain',
    '',
    'orig text',
    '--inner',
    'Content-Type: text/html',
    '',
    '<p>orig</p>',
    '--inner--',
    '',
    '--outer--',
    '',
  ].join('\r\n'),
);

const entry: MailEntry = { uid: 7, id: 'msg_1', size: RAW.length, receivedAt: Date.UTC(2026, 11, 7, 1, 2, 3), flags: new Set(['\\Seen']) };

/** The FETCH response body (inside the parentheses) for the given items, as text. */
function fetch(items: string): string {
  const [token] = tokenize([items], []);
  const plan = parseFetchItems(token, false);
  return wireOf([fetchValues(plan, entry, { raw: RAW, mime: parseMime(RAW) })]).toString('latin1');
}

test('part numbers reach through the multipart and into the forwarded message', () => {
  expect(fetch('BODY.PEEK[1]')).toBe('(BODY[1] {12}\r\nHello\r\nthere)');
  expect(fetch('BODY.PEEK[1.MIME]')).toBe('(BODY[1.MIME] {43}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n)');
  expect(fetch('BODY.PEEK[2.HEADER.FIELDS (SUBJECT)]')).toBe('(BODY[2.HEADER.FIELDS (SUBJECT)] {21}\r\nSubject: original\r\n\r\n)');
  expect(fetch('BODY.PEEK[2.1]')).toBe('(BODY[2.1] {9}\r\norig text)');
  expect(fetch('BODY.PEEK[2.2]')).toBe('(BODY[2.2] {11}\r\n<p>orig</p>)');
  expect(fetch('BODY.PEEK[3]')).toBe('(BODY[3] {0}\r\n)');
});

test('the whole message, its header, fields left out, and partials are cut from the raw source', () => {
  const header = RAW.subarray(0, RAW.indexOf('\r\n\r\n') + 4).toString('latin1');
  expect(fetch('BODY.PEEK[]')).toBe(`(BODY[] {${RAW.length}}\r\n${RAW.toString('latin1')})`);
  expect(fetch('BODY.PEEK[HEADER]')).toBe(`(BODY[HEADER] {${header.length}}\r\n${header})`);
  expect(fetch('BODY.PEEK[]<0.4>')).toBe('(BODY[]<0> {4}\r\nFrom)');
  expect(fetch('BODY.PEEK[]<99999.4>')).toBe('(BODY[]<99999> {0}\r\n)');
  const notFields = fetch('BODY.PEEK[HEADER.FIELDS.NOT (FROM TO MIME-VERSION CONTENT-TYPE)]');
  expect(notFields).toContain('Subject: =?UTF-8?Q?Re=3A_ticket?=\r\nMessage-ID: <m1@desk.example>\r\n\r\n');
  expect(notFields).not.toContain('From:');
});

test('ENVELOPE keeps encoded words for the client and splits quoted names with commas', () => {
  expect(fetch('ENVELOPE')).toBe(
    '(ENVELOPE (NIL "=?UTF-8?Q?Re=3A_ticket?=" (("Help Desk" NIL "help" "desk.example")) (("Help Desk" NIL "help" "desk.example")) (("Help Desk" NIL "help" "desk.example")) ((NIL NIL "a" "x.test") ("B, Person" NIL "b" "x.test")) NIL NIL NIL "<m1@desk.example>"))',
  );
});

test('BODYSTRUCTURE names each part, the forwarded message with its own envelope and structure', () => {
  const structure = fetch('BODYSTRUCTURE');
  expect(structure).toMatch(/^\(BODYSTRUCTURE \(\("TEXT" "PLAIN" \("CHARSET" "utf-8"\) NIL NIL "7BIT" 12 2 /);
  expect(structure).toContain('("MESSAGE" "RFC822" NIL NIL NIL "7BIT"');
  expect(structure).toContain('(NIL "original" ((NIL NIL "orig" "o.test"))');
  expect(structure).toContain('"ALTERNATIVE" ("BOUNDARY" "inner")');
  expect(structure).toContain('("ATTACHMENT" ("FILENAME" "fwd.eml"))');
  expect(structure).toMatch(/"MIXED" \("BOUNDARY" "outer"\) NIL NIL NIL\)\)$/);
  expect(fetch('(FLAGS UID INTERNALDATE RFC822.SIZE)')).toBe(`(FLAGS (\\Seen) UID 7 INTERNALDATE "07-Dec-2026 01:02:03 +0000" RFC822.SIZE ${RAW.length})`);
});
