import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test, expect } from './fixtures.ts';
import { createSqliteStore } from '../../../src/server/storage/sqlite.ts';

const CHILD = fileURLToPath(new URL('./durability-child.ts', import.meta.url));

test('a message whose insert resolved survives a SIGKILL of the process that stored it', async ({ tempDir }) => {
  const db = join(tempDir, 'durable.db');
  const child = spawn(process.execPath, [CHILD, db]);
  try {
    const { messageId } = await new Promise<{ messageId: string }>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as { messageId: string });
      });
      child.once('exit', (code) => reject(new Error(`child exited with ${code}: ${err}`)));
    });
    const killed = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await killed;

    const store = createSqliteStore({ path: db });
    try {
      const message = await store.findMessage(messageId);
      expect(message?.subject).toBe('kept');
      expect(message?.attachments[0]?.size).toBe(64 * 1024);
      expect(new TextDecoder().decode((await store.findRaw(messageId))!)).toContain('Subject: kept');
    } finally {
      await store.close();
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
});

test('a database file is migrated once and reopened without loss', async ({ tempDir }) => {
  const db = join(tempDir, 'reopen.db');
  const first = createSqliteStore({ path: db });
  const user = await first.createUser({ email: 'a@example.com', planId: 'premium' });
  await first.close();
  const second = createSqliteStore({ path: db });
  try {
    expect(await second.findUserByEmail('A@example.com')).toEqual(user);
  } finally {
    await second.close();
  }
});
