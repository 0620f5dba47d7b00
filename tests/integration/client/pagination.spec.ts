import { test, expect } from './fixtures.ts';

test('iterating the messages of an inbox walks hundreds of messages across pages, newest first, each once', async ({ guest, send }) => {
  test.setTimeout(120_000);
  const inbox = await guest.inboxes.create();
  const total = 230;
  for (let i = 1; i <= total; i++) await send({ to: inbox.address, subject: `Message ${i}`, text: `Body ${i}` });

  const first = await inbox.messages({ limit: 100 });
  expect(first.items).toHaveLength(100);
  expect(first.items[0]!.subject).toBe(`Message ${total}`);
  expect(first.nextCursor).toEqual(expect.any(String));

  const pageSizes: number[] = [];
  for await (const page of inbox.messages({ limit: 100 }).pages()) pageSizes.push(page.items.length);
  expect(pageSizes).toEqual([100, 100, 30]);

  const seqs: number[] = [];
  for await (const message of inbox.messages({ limit: 100 })) seqs.push(message.seq);
  expect(seqs).toEqual(Array.from({ length: total }, (_, i) => total - i));
});

test('a cursor stays valid while messages arrive and are deleted between pages', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  for (let i = 1; i <= 30; i++) await send({ to: inbox.address, subject: `Message ${i}`, text: `Body ${i}` });
  const seqs: number[] = [];
  let changed = false;
  for await (const message of inbox.messages({ limit: 10 })) {
    seqs.push(message.seq);
    if (!changed && seqs.length === 10) {
      changed = true;
      await send({ to: inbox.address, subject: 'Late', text: 'late' });
      const all = await inbox.messages({ limit: 100 });
      await inbox.deleteMessage(all.items.find((m) => m.seq === 15)!.id);
    }
  }
  expect(seqs).toEqual(Array.from({ length: 30 }, (_, i) => 30 - i).filter((s) => s !== 15));
});

test('iterating inboxes walks every inbox of the key across pages', async ({ keyed }) => {
  const created = new Set<string>();
  for (let i = 0; i < 120; i++) created.add((await keyed.inboxes.create()).id);
  const seen: string[] = [];
  for await (const inbox of keyed.inboxes.list({ limit: 50 })) seen.push(inbox.id);
  expect(new Set(seen)).toEqual(created);
  expect(seen).toHaveLength(120);
});
