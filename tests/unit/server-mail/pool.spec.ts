import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { createMailPool } from '../../../src/server/mail/pool.ts';
import { prepareMessage } from '../../../src/server/mail/prepare.ts';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/eml/${name}`, import.meta.url));
const names = ['inline-image.eml', 'attachments.eml', 'html-only.eml', 'koi8-r.eml', 'malformed.eml', 'multipart-alternative.eml'];

test('a message prepared by a worker of the pool is the one prepared on the calling thread, raw source included', async () => {
  const pool = createMailPool({ threads: 2, minBytes: 0 });
  try {
    const raws = names.map(fixture);
    const pooled = await Promise.all(raws.map((raw) => pool.prepare(raw, { envelopeFrom: 'sender@example.test' })));
    for (const [index, raw] of raws.entries()) {
      const local = await prepareMessage(raw, { envelopeFrom: 'sender@example.test' });
      expect(pooled[index], names[index]).toEqual(local);
      expect(pooled[index]!.message.raw, `${names[index]} keeps the caller's bytes`).toBe(raw);
    }
  } finally {
    await pool.close();
  }
});

test('a closed pool refuses work and says how to get a new one', async () => {
  const pool = createMailPool({ minBytes: 0 });
  await pool.prepare(fixture('html-only.eml'), { envelopeFrom: '' });
  await pool.close();
  await expect(pool.prepare(fixture('html-only.eml'), { envelopeFrom: '' })).rejects.toThrow(/after close\(\).*createMailPool\(\)/);
});

test('a pool needs at least one thread', () => {
  expect(() => createMailPool({ threads: 0 })).toThrow(/threads must be a whole number of at least 1, got 0/);
});
