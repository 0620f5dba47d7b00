import { join } from 'node:path';
import { startServer, createSqliteStore, hashSecret, newApiKey } from '../../../src/server/index.ts';
import { test, expect, apiOf, KEY_A, KEY_B } from './fixtures.ts';

test('a configured API key keeps its user and inboxes across restarts on a database file, and stops working once no longer configured', async ({ tempDir }) => {
  const dbPath = join(tempDir, 'keys.db');
  // A key made like `inboxkit keys create` does, which configuration never removes.
  const store = createSqliteStore({ path: dbPath });
  const user = await store.createUser({ email: 'made@example.com', planId: 'premium' });
  const made = newApiKey();
  await store.addApiKey(user.id, hashSecret(made));
  await store.close();

  let inboxId: string;
  {
    const server = await startServer({ dbPath, apiKeys: [KEY_A, KEY_B] });
    const api = apiOf(server);
    inboxId = (await api('POST', '/inboxes', { bearer: KEY_A })).body.data.id;
    await server.close();
  }
  {
    const server = await startServer({ dbPath, apiKeys: [KEY_A] });
    const api = apiOf(server);
    expect((await api('GET', `/inboxes/${inboxId}`, { bearer: KEY_A })).status).toBe(200);
    expect((await api('GET', '/me', { bearer: KEY_B })).status).toBe(401);
    expect((await api('GET', '/me', { bearer: made })).body.data.user.email).toBe('made@example.com');
    await server.close();
  }
  {
    const server = await startServer({ dbPath });
    const api = apiOf(server);
    expect((await api('GET', '/me', { bearer: KEY_A })).status).toBe(401);
    expect((await api('GET', '/me', { bearer: made })).status).toBe(200);
    await server.close();
  }
});

test('an API key of the wrong shape is refused at start with a message naming the fix', async () => {
  await expect(startServer({ apiKeys: ['sk_live_123'] })).rejects.toThrow(/must start with "tm_".*inboxkit keys create/);
});
