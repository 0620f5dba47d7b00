import { test, expect } from '@playwright/test';
import { path } from '../../../src/client/internal/path.ts';
import { InboxkitError, createClient } from '../../../src/client/index.ts';
import { fakeServer, json } from './fake-server.ts';

test('ids in a path are percent-encoded, so a slash or a query cannot change the resource', () => {
  expect(path`/messages/${'a/b?c=1'}/attachments/${'x y'}`).toBe('/messages/a%2Fb%3Fc%3D1/attachments/x%20y');
  expect(path`/messages/${'...'}`).toBe('/messages/...');
  expect(path`/messages/${'.hidden'}`).toBe('/messages/.hidden');
});

for (const segment of ['.', '..']) {
  test(`the dot segment ${JSON.stringify(segment)} is refused as an id with an InboxkitError that names it`, () => {
    expect(() => path`/messages/${'m1'}/attachments/${segment}`).toThrow(InboxkitError);
    expect(() => path`/messages/${'m1'}/attachments/${segment}`).toThrow(`An id in /messages/{…}/attachments/{…} is ${JSON.stringify(segment)}, a dot segment`);
  });
}

test('an empty id is refused before any request', () => {
  expect(() => path`/inboxes/${''}`).toThrow(/An id in \/inboxes\/\{…\} is empty/);
});

test('attachments.download(id, "..") sends no request instead of asking for GET /messages/{id}/', async () => {
  const server = await fakeServer((_req, res) => json(res, 200, { data: {} }));
  const client = createClient({ baseUrl: server.url, retry: false });
  try {
    // Like an empty id, a dot segment is refused when the call is made.
    expect(() => client.attachments.download('m1', '..')).toThrow(/is "\.\.", a dot segment/);
    expect(() => client.messages.get('.')).toThrow(InboxkitError);
    expect(server.requests).toEqual([]);
  } finally {
    await client.close();
    await server.close();
  }
});
