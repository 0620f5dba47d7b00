/**
 * Load: 16 concurrent SMTP senders × 125 messages over 50 inboxes while 50
 * streams and pollers read. Every message that got a 250 is listed once,
 * streamed once in seq order, and its stored raw source is byte-identical.
 */
import { randomBytes } from 'node:crypto';
import type { CreatedInbox, MessageSummary } from '../../../src/wire/schemas.ts';
import { RawSmtp, dataOf, expect, figure, openStream, sha256, test } from './helpers.ts';

const SENDERS = 16;
/**
 * 125 each (2,000 in all, 40 per inbox): the same concurrency as the 250 it
 * was (16 sessions, 50 streams, 10 pollers at once), in half the time — it ran
 * on both backends for about three minutes of a CI run. Throughput is the bench's.
 */
const PER_SENDER = 125;
const INBOXES = 50;
const POLLERS = 10;

test.use({ harnessOptions: { maxMessagesPerInbox: null } });

/** A message with 8-bit text, a long line and a leading-dot line (dot-stuffed in transit). */
function message(to: string, subject: string): string {
  const noise = randomBytes(300).toString('base64');
  return [
    'From: Load Sender <load@adversary.test>',
    `To: ${to}`,
    `Subject: ${subject}`,
    `Message-ID: <${subject}@adversary.test>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    '',
    `Grüße, ${subject} — ünïcödé ✓`,
    '.a line that starts with a dot',
    '..two dots',
    noise,
    `${'x'.repeat(900)}`,
    '',
  ].join('\r\n');
}

test('@heavy 16 senders × 125 messages over 50 inboxes with 50 streams and pollers: every accepted message listed once, streamed once in seq order, raw byte-identical', async ({ harness }) => {
  test.setTimeout(600_000);
  const inboxes: CreatedInbox[] = await Promise.all(Array.from({ length: INBOXES }, () => harness.createInbox()));

  // 50 streams, one per inbox, from before the first message.
  const abort = new AbortController();
  const streamed = new Map<string, Array<{ seq: number; id: string; subject: string }>>();
  const streams = await Promise.all(
    inboxes.map(async (inbox) => {
      const got: Array<{ seq: number; id: string; subject: string }> = [];
      streamed.set(inbox.id, got);
      const { status, events } = await openStream(`${harness.server.apiUrl}/inboxes/${inbox.id}/stream`, { 'x-inbox-token': inbox.token }, abort.signal);
      expect(status).toBe(200);
      let live!: () => void;
      const ready = new Promise<void>((resolve) => (live = resolve));
      // Wrapped: an async function returning the reading promise would wait for the stream's end.
      const done = (async () => {
        for await (const e of events) {
          if (!('comment' in e) && e.event === 'ready') live();
          if ('comment' in e || e.event !== 'message') continue;
          const m = JSON.parse(e.data) as MessageSummary;
          got.push({ seq: Number(e.id), id: m.id, subject: m.subject });
        }
      })();
      return { done, ready };
    }),
  );
  // Every stream is live before the first message: without Last-Event-ID, what commits before ready is history.
  await Promise.all(streams.map((s) => s.ready));

  // Pollers list random inboxes all along.
  let polling = true;
  let polls = 0;
  const pollers = Array.from({ length: POLLERS }, async (_, p) => {
    let i = p;
    while (polling) {
      const inbox = inboxes[i++ % INBOXES]!;
      const res = await harness.call(`/inboxes/${inbox.id}/messages?limit=20`, { headers: { 'x-inbox-token': inbox.token } });
      expect(res.status).toBe(200);
      polls++;
      await new Promise((r) => setTimeout(r, 10));
    }
  });

  // The senders: one SMTP session each, their messages in a row.
  const accepted = new Map<string, { inboxId: string; sha: string }>();
  let refused = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SENDERS }, async (_, s) => {
      const smtp = await RawSmtp.connect(harness.server.smtpPort);
      try {
        await smtp.hello();
        for (let i = 0; i < PER_SENDER; i++) {
          const inbox = inboxes[(s * PER_SENDER + i) % INBOXES]!;
          const subject = `load-${s}-${i}`;
          const raw = message(inbox.address, subject);
          expect((await smtp.command('MAIL FROM:<load@adversary.test>')).code).toBe(250);
          expect((await smtp.command(`RCPT TO:<${inbox.address}>`)).code).toBe(250);
          expect((await smtp.command('DATA')).code).toBe(354);
          smtp.write(Buffer.from(dataOf(raw), 'utf8'));
          const reply = await smtp.reply();
          if (reply.code === 250) accepted.set(subject, { inboxId: inbox.id, sha: sha256(Buffer.from(raw, 'utf8')) });
          else refused++;
        }
        await smtp.command('QUIT');
      } finally {
        smtp.end();
      }
    }),
  );
  const sendMs = performance.now() - started;
  const total = SENDERS * PER_SENDER;
  expect(accepted.size + refused).toBe(total);

  // Every stream has caught up (bounded by the test timeout).
  const expectedPerInbox = new Map<string, number>();
  for (const { inboxId } of accepted.values()) expectedPerInbox.set(inboxId, (expectedPerInbox.get(inboxId) ?? 0) + 1);
  await expect
    .poll(() => inboxes.every((i) => (streamed.get(i.id)?.length ?? 0) >= (expectedPerInbox.get(i.id) ?? 0)), { timeout: 60_000, intervals: [100, 250, 500] })
    .toBe(true);
  polling = false;
  await Promise.all(pollers);

  let listedOnce = 0;
  let streamedOnce = 0;
  let identical = 0;
  for (const inbox of inboxes) {
    const listed = await harness.listAll(inbox);
    const bySubject = new Map<string, number>();
    for (const m of listed) bySubject.set(m.subject, (bySubject.get(m.subject) ?? 0) + 1);
    const mine = [...accepted].filter(([, a]) => a.inboxId === inbox.id);
    for (const [subject] of mine) if (bySubject.get(subject) === 1) listedOnce++;
    expect(listed).toHaveLength(mine.length);

    // Streamed: seq 1..n in order, each message once, the same messages as listed.
    const events = streamed.get(inbox.id)!;
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: mine.length }, (_, k) => k + 1));
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect(new Set(events.map((e) => e.id))).toEqual(new Set(listed.map((m) => m.id)));
    streamedOnce += events.length;

    await Promise.all(
      listed.map(async (m) => {
        const res = await fetch(`${harness.server.apiUrl}/messages/${m.id}/raw`, { headers: { 'x-inbox-token': inbox.token } });
        if (sha256(Buffer.from(await res.arrayBuffer())) === accepted.get(m.subject)?.sha) identical++;
      }),
    );
  }
  abort.abort();
  await Promise.allSettled(streams.map((s) => s.done));
  expect(listedOnce).toBe(accepted.size);
  expect(streamedOnce).toBe(accepted.size);
  expect(identical).toBe(accepted.size);
  figure(
    'load',
    `${accepted.size}/${total} messages accepted (250) by ${SENDERS} concurrent senders in ${(sendMs / 1000).toFixed(1)} s (${((accepted.size / sendMs) * 1000).toFixed(0)} msg/s) with ${INBOXES} streams and ${POLLERS} pollers (${polls} polls) reading: ${listedOnce}/${accepted.size} listed once, ${streamedOnce}/${accepted.size} streamed once in seq order, ${identical}/${accepted.size} raw byte-identical`,
  );
});
