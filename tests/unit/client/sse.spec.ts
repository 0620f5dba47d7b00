import { test, expect } from '@playwright/test';
import { createSseDecoder } from '../../../src/client/internal/sse.ts';
import type { SseEvent } from '../../../src/client/internal/sse.ts';

const summary = (seq: number, subject: string) =>
  JSON.stringify({ id: `m${seq}`, inboxId: 'i1', seq, subject, from: null, to: [], cc: [], preview: 'é', receivedAt: '2026-01-01T00:00:00Z', size: 1, hasAttachments: false });

const wire = Buffer.from(
  [
    'retry: 2000\n',
    ': ping\r\n',
    '\n',
    `event: message\nid: 1\ndata: ${summary(1, 'Grüße 👋 from Zürich')}\n\n`,
    `event: message\r\nid: 2\r\ndata: ${summary(2, '日本語の件名')}\r\n\r\n`,
    'event: something.new\ndata: {"x":1}\n\n',
    'event: ready\ndata: {"inboxId":"i1",\ndata: "lastSeq":2}\n\n',
    ': ping\n\n',
    'event: inbox.deleted\rdata: {"inboxId":"i1"}\r\r',
  ].join(''),
  'utf8',
);

function decodeIn(chunks: Uint8Array[]): { events: SseEvent[]; retry: number | null } {
  const decoder = createSseDecoder();
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...decoder.push(chunk));
  return { events, retry: decoder.retry };
}

const whole = decodeIn([wire]);

test('a stream decodes into its events, with the retry interval, whatever the line endings', () => {
  expect(whole.retry).toBe(2000);
  expect(whole.events.map((e) => [e.event, e.id ?? null])).toEqual([
    ['message', '1'],
    ['message', '2'],
    ['something.new', null],
    ['ready', null],
    ['inbox.deleted', null],
  ]);
  expect(JSON.parse(whole.events[0]!.data).subject).toBe('Grüße 👋 from Zürich');
  expect(JSON.parse(whole.events[1]!.data).subject).toBe('日本語の件名');
  expect(JSON.parse(whole.events[3]!.data)).toEqual({ inboxId: 'i1', lastSeq: 2 });
});

test('a stream split in two at every byte decodes to the same events', () => {
  for (let i = 1; i < wire.length; i++) {
    const split = decodeIn([wire.subarray(0, i), wire.subarray(i)]);
    expect(split, `split at byte ${i}`).toEqual(whole);
  }
});

test('a stream fed one byte at a time decodes to the same events', () => {
  const bytes: Uint8Array[] = [];
  for (let i = 0; i < wire.length; i++) bytes.push(wire.subarray(i, i + 1));
  expect(decodeIn(bytes)).toEqual(whole);
});

test('an event is not delivered before its blank line arrives', () => {
  const decoder = createSseDecoder();
  expect(decoder.push(Buffer.from(`event: message\nid: 1\ndata: ${summary(1, 'x')}\n`))).toEqual([]);
  expect(decoder.push(Buffer.from('\n'))).toHaveLength(1);
});
