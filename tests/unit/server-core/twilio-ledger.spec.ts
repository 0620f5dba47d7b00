/**
 * The Twilio ledger (what `messages(sid).fetch()` and `messages.list()` read)
 * is bounded: an owner keeps its newest texts, the node its newest in all,
 * and nobody reads another owner's.
 */
import { test, expect } from '@playwright/test';
import { createTwilioLedger } from '../../../src/server/sms/twilio-ledger.ts';
import type { TwilioMessageFields } from '../../../src/server/sms/twilio.ts';

const text = (sid: string, createdAt = 0): TwilioMessageFields => ({ accountSid: 'AC1', sid, to: '+15550001', from: '+15550002', messagingServiceSid: null, body: sid, segments: 1, status: 'queued', createdAt });

test('an owner past its bound loses its oldest text, not another owner\'s', () => {
  const ledger = createTwilioLedger({ total: 100, perOwner: 2 });
  ledger.record('a', text('1'));
  ledger.record('b', text('x'));
  ledger.record('a', text('2'));
  ledger.record('a', text('3'));
  expect(ledger.list('a', {}).map((m) => m.sid)).toEqual(['3', '2']);
  expect(ledger.find('b', 'x')?.sid).toBe('x');
  expect(ledger.find('b', '2')).toBeNull();
});

test('the node past its bound loses its oldest text, whoever sent it', () => {
  const ledger = createTwilioLedger({ total: 3, perOwner: 3 });
  for (const [owner, sid] of [['a', '1'], ['b', '2'], ['a', '3'], ['b', '4']] as const) ledger.record(owner, text(sid));
  expect(ledger.find('a', '1')).toBeNull();
  expect(ledger.list('a', {}).map((m) => m.sid)).toEqual(['3']);
  expect(ledger.list('b', {}).map((m) => m.sid)).toEqual(['4', '2']);
});

test('an update changes what a kept text says and nothing when the text is gone', () => {
  const ledger = createTwilioLedger({ total: 1, perOwner: 1 });
  ledger.record('a', text('1'));
  ledger.update('a', '1', { status: 'delivered' });
  expect(ledger.find('a', '1')?.status).toBe('delivered');
  ledger.record('a', text('2'));
  ledger.update('a', '1', { status: 'failed' });
  expect(ledger.find('a', '1')).toBeNull();
  expect(ledger.list('a', { sentOn: '1970-01-01' }).map((m) => m.sid)).toEqual(['2']);
});
