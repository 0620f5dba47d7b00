/**
 * Credentials at rest: a dump of the database file (every table, and the raw
 * bytes of the file and its WAL) holds no API key, token or connect code in clear.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { KEY_A, KEY_B, setUpTenants } from './tenants.ts';
import { expect, figure, startHarness, test } from './helpers.ts';

test('a dump of the file database (every table and the raw bytes of its files) contains no API key, token or connect code in clear', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'inboxkit-at-rest-'));
  let clock = Date.now();
  const dbPath = join(dir, 'inboxkit.db');
  const harness = await startHarness({ dbPath, apiKeys: [KEY_A, KEY_B], now: () => clock });
  try {
    const tenants = await setUpTenants(harness, (ms) => (clock += ms));
    // Each secret and its random part without the prefix.
    const needles = tenants.secrets.flatMap((s) => [s, s.replace(/^[a-z]+_/, '')]);
    expect(new Set(tenants.secrets).size).toBe(tenants.secrets.length);

    const scan = async (label: string): Promise<{ bytes: number; rows: number }> => {
      let bytes = 0;
      for (const file of await readdir(dir)) {
        const content = await readFile(join(dir, file));
        bytes += content.byteLength;
        const text = content.toString('latin1');
        for (const needle of needles) expect(text.includes(needle), `${label}: ${file} contains a secret in clear`).toBe(false);
      }
      const db = new DatabaseSync(dbPath, { readOnly: true });
      let rows = 0;
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>;
        for (const { name } of tables) {
          for (const row of db.prepare(`SELECT * FROM "${name}"`).all()) {
            rows++;
            const dump = JSON.stringify(row, (_k, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : typeof v === 'bigint' ? String(v) : v));
            for (const needle of needles) expect(dump.includes(needle), `${label}: table ${name} holds a secret in clear`).toBe(false);
          }
        }
      } finally {
        db.close();
      }
      return { bytes, rows };
    };
    const live = await scan('while running');
    // The hashes are there: the scan looks at the right data.
    const db = new DatabaseSync(dbPath, { readOnly: true });
    const hashes = (db.prepare('SELECT token_hash FROM inboxes').all() as Array<{ token_hash: string }>).map((r) => r.token_hash);
    db.close();
    expect(hashes.length).toBeGreaterThanOrEqual(6);
    await harness.close();
    const closed = await scan('after close');
    figure('credentials at rest', `${tenants.secrets.length} secrets (2 API keys, 6 inbox tokens, 2 session tokens, 3 connect codes) × ${live.rows} rows and ${live.bytes} file bytes while running, ${closed.bytes} after close: 0 in clear`);
  } finally {
    await harness.close();
    await rm(dir, { recursive: true, force: true });
  }
});
