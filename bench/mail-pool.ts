/**
 * Whether preparing messages in a worker pool (`createMailPool`) pays off at
 * intake: the same raw messages prepared on the main thread and through the
 * pool (1 and 2 threads), alternating, with 1 and 4 at a time. Prints wall
 * time per message and the main thread's busy time per message (what the
 * event loop cannot spend on SMTP, HTTP and SQLite).
 *
 * Run with `npx node bench/mail-pool.ts` (optionally `-- --messages 200`).
 */
import { performance } from 'node:perf_hooks';
import { prepareMessage } from '../src/server/mail/prepare.ts';
import { createMailPool } from '../src/server/mail/pool.ts';
import { buildRaw, transactionalHtml } from './lib/mail.ts';

const count = Number(process.argv[process.argv.indexOf('--messages') + 1]) || 200;
const html = transactionalHtml();
const inputs = [
  { name: '10KB', raw: await buildRaw({ from: 'a@example.test', to: 'b@example.test', subject: 'Receipt', html }) },
  { name: '10KB+100KB', raw: await buildRaw({ from: 'a@example.test', to: 'b@example.test', subject: 'Invoice', html, attachmentBytes: 100 * 1024 }) },
  { name: '10KB+1MB', raw: await buildRaw({ from: 'a@example.test', to: 'b@example.test', subject: 'Report', html, attachmentBytes: 1024 * 1024 }) },
];
const pools = { 'pool, 1 thread': createMailPool({ threads: 1, minBytes: 0 }), 'pool, 2 threads': createMailPool({ threads: 2, minBytes: 0 }) };
type Prepare = (raw: Uint8Array) => Promise<unknown>;
const ways: Record<string, Prepare> = {
  'main thread': (raw) => prepareMessage(raw, { envelopeFrom: 'a@example.test' }),
  ...Object.fromEntries(Object.entries(pools).map(([name, pool]) => [name, (raw: Uint8Array) => pool.prepare(raw, { envelopeFrom: 'a@example.test' })])),
};

async function run(prepare: Prepare, raw: Uint8Array, n: number, concurrency: number): Promise<{ wallMs: number; busyMs: number }> {
  const elu = performance.eventLoopUtilization();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < n) {
      next++;
      await prepare(raw);
    }
  }));
  const wall = performance.now() - t0;
  const used = performance.eventLoopUtilization(elu);
  return { wallMs: wall / n, busyMs: used.active / n };
}

const rows: string[][] = [];
for (const input of inputs) {
  const n = input.name === '10KB+1MB' ? Math.ceil(count / 5) : count;
  for (const concurrency of [1, 4]) {
    const totals = new Map<string, { wall: number[]; busy: number[] }>();
    for (let rep = 0; rep < 3; rep++) {
      for (const [name, prepare] of Object.entries(ways)) {
        if (rep === 0) await run(prepare, input.raw, 10, concurrency); // warm up
        const r = await run(prepare, input.raw, n, concurrency);
        const t = totals.get(name) ?? { wall: [], busy: [] };
        t.wall.push(r.wallMs);
        t.busy.push(r.busyMs);
        totals.set(name, t);
      }
    }
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[1] as number;
    for (const [name, t] of totals) rows.push([input.name, String(concurrency), name, median(t.wall).toFixed(2), median(t.busy).toFixed(2)]);
  }
}
for (const pool of Object.values(pools)) await pool.close();
console.log('| message | at once | where | wall ms/msg | main-thread busy ms/msg |\n| --- | ---: | --- | ---: | ---: |');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
