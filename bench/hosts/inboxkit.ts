/**
 * Child process that runs one inboxkit server for the benchmark, so that the
 * server has its own event loop (and core), as it has when a test suite talks
 * to `inboxkit serve` or a Playwright global setup.
 *
 * Started by bench/lib/hosts.ts with `fork()`; its argument is a JSON
 * {@link InboxkitHostConfig}. It answers over IPC:
 * - sends `{ type: 'ready', ... }` once listening;
 * - on `{ type: 'stats', gc?: true }` answers `{ type: 'stats', rss, heapUsed }`;
 * - on `{ type: 'stop' }` closes everything and exits.
 *
 * With `delayedSmtp`, a second SMTP intake on the same store and event bus
 * keeps smtp-server's default 100 ms early-talker wait, to measure what the
 * server's own intake (no wait) saves.
 *
 * @packageDocumentation
 */
import { pathToFileURL } from 'node:url';
import type * as ServerModule from '../../src/server/index.ts';
import type * as IntakeModule from '../../src/server/smtp/intake.ts';
import type { NewMessage } from '../../src/server/storage/contract/types.ts';

/** What the host is asked to run. */
export interface InboxkitHostConfig {
  /**
   * Folder of a compiled build of src/ (bench/lib/build.ts) to run the server from;
   * without one, the TypeScript sources run through Node's type stripping.
   */
  build?: string | null;
  /** SQLite file, or null for memory. */
  dbPath: string | null;
  /** Also start an SMTP intake with the given greeting delay (ms). */
  delayedSmtp?: number;
  /** Fill one inbox with this many messages through the Store API before serving. */
  fill?: number;
  /** Serve IMAP on a free port (the imap section). */
  imap?: boolean;
  /** An inbox an earlier host filled in the same database file, to report as `filled` again. */
  reopen?: { inboxId: string; token: string; count: number };
}

/** The `ready` message of the host. */
export interface InboxkitHostReady {
  type: 'ready';
  apiUrl: string;
  url: string;
  smtpPort: number;
  delayedSmtpPort: number | null;
  /** The IMAP port, when `imap` was asked. */
  imapPort?: number | null;
  /** The filled inbox, when `fill` was asked. */
  filled: { inboxId: string; token: string; count: number; ms: number } | null;
}

const config = JSON.parse(process.argv[2] ?? '{}') as InboxkitHostConfig;
const from = (built: string, source: string) => (config.build ? pathToFileURL(`${config.build}/${built}`).href : new URL(source, import.meta.url).href);
const { hashSecret, createEventBus, createSqliteStore, startServer } = (await import(from('server/index.js', '../../src/server/index.ts'))) as typeof ServerModule;
const { createSmtpIntake } = (await import(from('server/smtp/intake.js', '../../src/server/smtp/intake.ts'))) as typeof IntakeModule;
const send = (message: object) => process.send?.(message);

/** A typical 3 KB verification email as the store keeps it. */
function storedMessage(i: number, to: string): NewMessage {
  const text = `Hi Alice,\n\nConfirm your address: https://app.example.test/verify?token=${i.toString(36).padStart(12, 'x')}\nYour code is ${String(100000 + (i % 900000))}.\n\nThe Example team`;
  const html = `<p>Hi Alice,</p><p><a href="https://app.example.test/verify?token=${i}">Confirm your address</a></p><p>Your code is <b>${100000 + (i % 900000)}</b>.</p>`.repeat(4);
  const raw = new TextEncoder().encode(
    `From: Example <no-reply@example.test>\r\nTo: ${to}\r\nSubject: Confirm your address #${i}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n${text}\r\n--b\r\nContent-Type: text/html\r\n\r\n${html}\r\n--b--\r\n`,
  );
  return {
    raw,
    from: { address: 'no-reply@example.test', name: 'Example' },
    to: [{ address: to, name: '' }],
    cc: [],
    replyTo: [],
    subject: `Confirm your address #${i}`,
    headers: { from: 'Example <no-reply@example.test>', to, subject: `Confirm your address #${i}`, 'mime-version': '1.0' },
    text,
    rawHtml: html,
    sanitizedHtml: html,
    envelopeFrom: 'no-reply@example.test',
    attachments: [],
  };
}

const store = createSqliteStore({ path: config.dbPath });
const bus = createEventBus();
let filled: InboxkitHostReady['filled'] = config.reopen ? { ...config.reopen, ms: 0 } : null;
if (config.fill !== undefined) {
  const [domain] = await store.syncDomains(['inboxkit.example.com']);
  if (!domain) throw new Error('bench host: no domain after syncDomains');
  const token = `bench-${process.pid}-${Date.now()}`;
  const inbox = await store.createInbox({
    localPart: 'filled', domainId: domain.id, ownerUserId: null, label: null,
    tokenHash: hashSecret(token), createdAt: Date.now(), expiresAt: null,
  });
  if (inbox === 'address_taken') throw new Error('bench host: the filled inbox exists already (stale database file?)');
  const started = performance.now();
  for (let i = 1; i <= config.fill; i++) await store.insertMessage([inbox.id], storedMessage(i, 'filled@inboxkit.example.com'), Date.now());
  filled = { inboxId: inbox.id, token, count: config.fill, ms: performance.now() - started };
}

// Defaults everywhere except the rate limit (6,000 requests a minute would throttle the load generator).
// No caps on open streams: the fan-out section opens 1000 streams from one credential and address,
// which the shared-service defaults (128 per credential, 512 per address) would refuse with 429.
const server = await startServer({ store, bus, rateLimit: false, maxStreamsPerCredential: null, maxStreamsPerAddress: null, ...(config.imap ? { imapPort: 0 } : {}) });
const delayed = config.delayedSmtp === undefined
  ? null
  : await createSmtpIntake(
    {
      store, bus, now: Date.now, forwarder: null,
      logger: { info() {}, warn() {}, error() {} },
      limits: { maxMessageBytes: server.config.maxMessageBytes, maxRecipients: server.config.maxRecipients, maxMessagesPerInbox: server.config.maxMessagesPerInbox },
    },
    { host: '127.0.0.1', port: 0, greetingDelayMs: config.delayedSmtp },
  );

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await delayed?.close();
  await server.close();
  await store.close();
  process.exit(0);
}
process.on('message', (message: { type: string; gc?: boolean }) => {
  if (message.type === 'stop') void stop();
  if (message.type === 'stats') {
    if (message.gc) (globalThis as { gc?: () => void }).gc?.();
    const usage = process.memoryUsage();
    const cpu = process.cpuUsage();
    send({ type: 'stats', rss: usage.rss, heapUsed: usage.heapUsed, heapTotal: usage.heapTotal, external: usage.external, cpuMs: (cpu.user + cpu.system) / 1000 });
  }
});
process.on('disconnect', () => void stop());

send({
  type: 'ready',
  apiUrl: server.apiUrl,
  url: server.url,
  smtpPort: server.smtpPort,
  delayedSmtpPort: delayed?.port ?? null,
  imapPort: server.imap?.port ?? null,
  filled,
} satisfies InboxkitHostReady);
