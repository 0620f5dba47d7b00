import { test, expect } from '@playwright/test';
import { LooseInbox, LooseMessage, LooseMessageSummary, LooseMe, LooseToken } from '../../../src/client/internal/schemas.ts';
import { createClient, InboxkitError } from '../../../src/client/index.ts';
import { resolveApiRoot } from '../../../src/client/client.ts';

test('an inbox from a hosted service with extra fields and without optional ones is accepted, keeping the extras', () => {
  const inbox = LooseInbox.parse({ id: 'in_1', address: 'abc@mail.example', createdAt: '2026-01-01T00:00:00Z', plan: 'gold' });
  expect(inbox).toMatchObject({ id: 'in_1', localPart: 'abc', domain: 'mail.example', label: null, forwardTo: null, expiresAt: null, messageCount: 0 });
  expect((inbox as Record<string, unknown>).plan).toBe('gold');
});

test('an inbox without an id or address does not fit', () => {
  expect(LooseInbox.safeParse({ address: 'a@b.c' }).success).toBe(false);
  expect(LooseInbox.safeParse({ id: 'x' }).success).toBe(false);
});

test('a message summary missing its optional parts gets empty ones, but needs its id and seq', () => {
  const m = LooseMessageSummary.parse({ id: 'm1', inboxId: 'i1', seq: 3, from: { address: 'a@b.c' } });
  expect(m).toMatchObject({ to: [], cc: [], subject: '', preview: '', size: 0, hasAttachments: false, from: { address: 'a@b.c', name: '' } });
  expect(LooseMessageSummary.safeParse({ id: 'm1', inboxId: 'i1' }).success).toBe(false);
});

test('a whole message with attachments but no hasAttachments says it has attachments', () => {
  const m = LooseMessage.parse({ id: 'm1', inboxId: 'i1', seq: 1, attachments: [{ id: 'a1' }] });
  expect(m.hasAttachments).toBe(true);
  expect(m.attachments[0]).toMatchObject({ filename: 'attachment', contentType: 'application/octet-stream', inline: false, contentId: null });
  expect(m).toMatchObject({ html: null, text: null, headers: {}, replyTo: [] });
});

test('a token type in lower case is accepted as Bearer, another type is not', () => {
  expect(LooseToken.parse({ accessToken: 't', tokenType: 'bearer', expiresIn: 60, expiresAt: 'x' }).tokenType).toBe('Bearer');
  expect(LooseToken.safeParse({ accessToken: 't', tokenType: 'mac' }).success).toBe(false);
});

test('the current user needs a known credential kind and a plan', () => {
  const plan = { id: 'p', name: 'P', entitlements: { apiKeys: true, customAddresses: true, forwarding: false, maxActiveInboxes: null, inboxTtlSeconds: null, maxMessageBytes: 1, requestsPerMinute: null } };
  expect(LooseMe.safeParse({ authenticated: false, credential: 'anonymous', user: null, plan }).success).toBe(true);
  expect(LooseMe.safeParse({ authenticated: false, credential: 'cookie', user: null, plan }).success).toBe(false);
});

test('a bare origin gets /api/v1 and a URL with a path is taken as the API root', () => {
  expect(resolveApiRoot('http://127.0.0.1:8025')).toBe('http://127.0.0.1:8025/api/v1');
  expect(resolveApiRoot('http://127.0.0.1:8025/')).toBe('http://127.0.0.1:8025/api/v1');
  expect(resolveApiRoot('http://127.0.0.1:8025/api/v1/')).toBe('http://127.0.0.1:8025/api/v1');
  expect(resolveApiRoot('https://api.example.com/v1?x=1')).toBe('https://api.example.com/v1');
});

test('bad client options are refused with what to give instead', () => {
  expect(() => createClient({ baseUrl: 'localhost:8025' })).toThrow(/is not a URL|must be an http/);
  expect(() => createClient({ baseUrl: 'not a url' })).toThrow(/Give the server origin/);
  expect(() => createClient({ baseUrl: 'ftp://x' })).toThrow(/http: or https:/);
  expect(() => createClient({ baseUrl: 'http://x', apiKey: '' })).toThrow(/apiKey is an empty string/);
  expect(() => createClient({ baseUrl: 'http://x', apiKey: 'tm_a', sessionToken: 's' })).toThrow(/either apiKey or sessionToken/);
  expect(() => createClient({ baseUrl: 'http://x', timeout: -1 })).toThrow(InboxkitError);
});

test('an empty id is refused before any request is sent', async () => {
  const client = createClient({ baseUrl: 'http://127.0.0.1:9' });
  expect(() => client.messages.get('')).toThrow(/empty; pass the id/);
  await client.close();
});
