/**
 * No request path writes: a message is stored complete at intake, so every GET
 * of the API works on a store that refuses writes.
 */
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { createSqliteStore } from '../../../src/server/storage/sqlite.ts';
import type { Store } from '../../../src/server/storage/contract/types.ts';
import type { CreatedInbox } from '../../../src/wire/schemas.ts';
import { startMailServer } from './harness.ts';

const KEY = 'tm_readonly_test_key_0123456789';

/** The methods of a {@link Store} that only read; every other one writes. */
const READS = new Set<string>([
  'listDomains', 'findDomainById', 'findDomainByName',
  'findUserById', 'findUserByEmail', 'findUserByApiKeyHash', 'findApiKey', 'listApiKeys', 'findSession',
  'findInboxById', 'findInboxByTokenHash', 'findActiveInboxByAddress', 'listInboxesByOwner', 'listActiveInboxes', 'countActiveInboxesByOwner',
  'listMessages', 'listMessagesAfterSeq', 'findMessage', 'findRaw', 'findAttachment',
  'countActiveGuestInboxesByAddress', 'findDeliveryFault', 'storedMessageBytes',
  // Counting a request against its rate-limit window is the one write a request makes; it touches no message.
  'hitRateLimit',
  // A key's "last used" time (at most once a minute, for `inboxkit keys list`): bookkeeping, never a message.
  'touchApiKey',
]);

/** A store whose write methods throw (and are recorded) once `lock()` was called. */
function lockableStore(inner: Store): { store: Store; lock(): void; writes: string[] } {
  const writes: string[] = [];
  let locked = false;
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || typeof name !== 'string' || READS.has(name) || name === 'close') return value;
      return (...args: unknown[]) => {
        if (locked) {
          writes.push(name);
          throw new Error(`read-only store: ${name} was called by a request`);
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, lock: () => (locked = true), writes };
}

test('every GET route answers from a store that refuses writes: the message was stored complete at intake', async () => {
  const inner = createSqliteStore();
  const { store, lock, writes } = lockableStore(inner);
  const server = await startMailServer({ store, apiKeys: [KEY] });
  try {
    // Made with the API key, so both credentials see it: its inbox token and the key.
    const created = await fetch(`${server.apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json', Authorization: `Bearer ${KEY}` }, body: '{}' });
    const inbox = ((await created.json()) as { data: CreatedInbox }).data;
    const eml = readFileSync(new URL('../../fixtures/eml/inline-image.eml', import.meta.url));
    await server.send({ envelope: { from: 'robot@app.example', to: [inbox.address] }, raw: eml });
    await server.send({ from: 'robot@app.example', to: inbox.address, subject: 'with a file', html: '<p onclick="x()">hi</p>', attachments: [{ filename: 'a.txt', content: 'abc' }] });
    lock();

    const [withFile, withImage] = await server.listMessages(inbox);
    const message = await server.getMessage(inbox, withFile!.id);
    const attachmentId = message.attachments[0]!.id;
    const image = await server.getMessage(inbox, withImage!.id);
    expect(image.html).toMatch(/<img src="data:image\/png;base64,/);
    expect(message.html).toBe('<p>hi</p>');

    // Every GET path of the OpenAPI document, each with real ids.
    const doc = (await (await fetch(`${server.apiUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const ids: Record<string, string> = { '{id}': inbox.id, '{attachmentId}': attachmentId };
    const getPaths = Object.entries(doc.paths).filter(([, ops]) => 'get' in ops).map(([path]) => path);
    expect(getPaths.length).toBeGreaterThanOrEqual(10);
    for (const path of getPaths) {
      const concrete = (path.startsWith('/messages/') ? path.replace('{id}', message.id) : path).replace(/\{[^}]+\}/g, (p) => ids[p] ?? p);
      expect(concrete, `${path} has only known parameters`).not.toMatch(/[{}]/);
      const credentials: Array<Record<string, string>> = [{ 'X-Inbox-Token': inbox.token }, { Authorization: `Bearer ${KEY}` }];
      for (const headers of credentials) {
        const controller = new AbortController();
        const stream = path.endsWith('/stream');
        const url = `${server.apiUrl}${concrete}${stream ? '?include=message' : ''}`;
        const res = await fetch(url, { headers: { ...headers, ...(stream ? { 'Last-Event-ID': '0' } : {}) }, signal: controller.signal });
        expect(res.status, `GET ${concrete}`).toBe(200);
        if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
          // The replay of both messages, whole, then ready.
          let text = '';
          for await (const chunk of res.body!) {
            text += Buffer.from(chunk as Uint8Array).toString('utf8');
            if (text.includes('event: ready')) break;
          }
          controller.abort();
          if (stream) {
            const events = text.split('\n\n').filter((e) => e.startsWith('event: message'));
            expect(events).toHaveLength(2);
            expect(events.every((e) => e.includes('"headers":'))).toBe(true);
          }
        } else {
          await res.arrayBuffer();
        }
      }
    }
    expect(writes).toEqual([]);
  } finally {
    await server.close();
    await inner.close();
  }
});
