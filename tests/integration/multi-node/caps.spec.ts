/**
 * Bounds that the docs call per service hold across nodes (issue 36): the
 * guest-inbox cap of a client address is counted in the database, in the
 * transaction that creates the inbox, so creates racing on two nodes never
 * pass it.
 */
import { test, expect } from '@playwright/test';
import { startServer } from '../../../src/server/index.ts';
import type { RunningServer } from '../../../src/server/index.ts';
import { freshPostgres, POSTGRES_SKIP, POSTGRES_URL } from '../../support/backends.ts';
import type { TestDatabase } from '../../support/backends.ts';

test.describe('two nodes on one PostgreSQL', () => {
  test.skip(POSTGRES_URL === null, POSTGRES_SKIP);
  let db: TestDatabase;
  const nodes: RunningServer[] = [];

  test.beforeEach(async () => {
    db = await freshPostgres();
    const options = { db: db.url, rateLimit: false as const, maxGuestInboxesPerAddress: 20 };
    nodes.push(...(await Promise.all([startServer(options), startServer(options)])));
  });

  test.afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.close()));
    await db.drop();
  });

  test('80 guest inboxes asked at once from one address, half on each node, make exactly the cap of 20', async () => {
    const create = (node: RunningServer) => fetch(`${node.apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => create(nodes[i % 2]!)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(60);
    const refused = (await answers.find((a) => a.status === 429)!.json()) as { error: { code: string; message: string } };
    expect(refused.error).toMatchObject({ code: 'limit_reached', message: expect.stringContaining('the cap is 20 (guest inboxes per client address; inboxkit serve --max-guest-inboxes-per-address)') });
    for (const a of answers) if (a.status === 200) await a.body?.cancel();
  });
});
