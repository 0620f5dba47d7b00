/**
 * Fixture overhead: what a test pays for its own inbox, created before it and
 * deleted after it (what the `inbox` fixture does through the client).
 *
 * @packageDocumentation
 */
import { createClient } from '../../src/client/index.ts';
import type { Host } from '../lib/hosts.ts';
import type { InboxkitHostReady } from '../hosts/inboxkit.ts';
import { summarize } from '../lib/stats.ts';
import type { LatencySummary } from '../lib/stats.ts';

/** Create + delete latency of an inbox through the client, and each half. */
export interface CreateDeleteResult {
  createDelete: LatencySummary;
  create: LatencySummary;
  delete: LatencySummary;
}

/** Measures `count` create + delete pairs, one after another, after 20 unmeasured ones. */
export async function runCreateDelete(host: Host<InboxkitHostReady>, count: number): Promise<CreateDeleteResult> {
  const client = createClient({ baseUrl: host.ready.apiUrl, retry: false });
  const both: number[] = [];
  const creates: number[] = [];
  const deletes: number[] = [];
  try {
    for (let i = -20; i < count; i++) {
      const t0 = performance.now();
      const inbox = await client.inboxes.create();
      const t1 = performance.now();
      await inbox.delete();
      const t2 = performance.now();
      if (i < 0) continue;
      both.push(t2 - t0);
      creates.push(t1 - t0);
      deletes.push(t2 - t1);
    }
  } finally {
    await client.close();
  }
  return { createDelete: summarize(both), create: summarize(creates), delete: summarize(deletes) };
}
