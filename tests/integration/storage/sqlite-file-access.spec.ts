/**
 * The SQLite database's files are the service user's alone: created 0600 with
 * their -wal and -shm, an existing world-readable file taken down to 0600, and a
 * folder other users may write to refused with what to do.
 */
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { createSqliteStore } from '../../../src/server/index.ts';

test.skip(process.platform === 'win32', 'file modes are POSIX');

const modeOf = async (path: string): Promise<string> => ((await stat(path)).mode & 0o777).toString(8);

test.describe('the SQLite database file', () => {
  let dir = '';
  test.beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'inboxkit-db-mode-'));
  });
  test.afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('is created readable by the service user alone, with its -wal and -shm files, whatever the umask', async () => {
    const previous = process.umask(0o022);
    try {
      const path = join(dir, 'inboxkit.db');
      const store = createSqliteStore({ path });
      try {
        const user = await store.createUser({ email: 'mode@example.com', planId: 'premium' });
        await store.addApiKey(user.id, 'c'.repeat(64));
        const files = (await readdir(dir)).sort();
        expect(files).toEqual(['inboxkit.db', 'inboxkit.db-shm', 'inboxkit.db-wal']);
        for (const file of files) expect(`${file} ${await modeOf(join(dir, file))}`).toBe(`${file} 600`);
      } finally {
        await store.close();
      }
    } finally {
      process.umask(previous);
    }
  });

  test('made world-readable by an older version is taken down to 0600 when the service opens it', async () => {
    const path = join(dir, 'old.db');
    await writeFile(path, '');
    await chmod(path, 0o644);
    const store = createSqliteStore({ path });
    await store.close();
    expect(await modeOf(path)).toBe('600');
  });

  test('in a folder other users may write to is refused, naming the folder and what to do, and nothing is created there', async () => {
    await chmod(dir, 0o777);
    expect(() => createSqliteStore({ path: join(dir, 'shared.db') })).toThrow(/database folder .* is writable by other users \(mode 777\).*chmod go-w/);
    expect(await readdir(dir)).toEqual([]);
  });

  test('in a shared folder with the sticky bit (like /tmp) is accepted and still created 0600', async () => {
    await chmod(dir, 0o1777);
    const path = join(dir, 'sticky.db');
    const store = createSqliteStore({ path });
    await store.close();
    expect(await modeOf(path)).toBe('600');
  });
});
