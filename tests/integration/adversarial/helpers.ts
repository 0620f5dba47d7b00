/**
 * Shared parts of the adversarial suite: a real server per test, a raw SMTP
 * socket client that sees every reply, a raw SSE reader, and figure printing.
 */
import { createHash } from 'node:crypto';
import net from 'node:net';
import { test as base } from '@playwright/test';
import { pino } from 'pino';
import { startServer } from '../../../src/server/index.ts';
import { projectBackend, projectDatabase } from '../../support/backends.ts';
import type { BackendName } from '../../support/backends.ts';
import type { RunningServer, StartServerOptions } from '../../../src/server/index.ts';
import type { CreatedInbox, MessageSummary } from '../../../src/wire/schemas.ts';
import { printFigure } from '../../support/figures.ts';

/** Prints one figure of the suite in the one format, `[figure] area: text`, with `INBOXKIT_FIGURES=1`. */
export function figure(area: string, text: string): void {
  printFigure(`[figure] ${area}: ${text}`);
}

export const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

/** A server with the helpers the suites use, its logs captured. */
export interface Harness {
  server: RunningServer;
  logs: Array<Record<string, unknown>>;
  /** Calls `${apiUrl}${path}` and reads the body as text. */
  call(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; text: string; json: unknown }>;
  createInbox(body?: Record<string, unknown>, headers?: Record<string, string>): Promise<CreatedInbox>;
  /** Every message of an inbox (all pages), newest first. */
  listAll(inbox: CreatedInbox): Promise<MessageSummary[]>;
  close(): Promise<void>;
}

export async function startHarness(options: StartServerOptions = {}): Promise<Harness> {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  // The caller's own store or database wins over the project's (SQLite, or PostgreSQL in `integration-postgres`).
  const database = options.store || options.db || options.dbPath ? null : await projectDatabase();
  const server = await startServer({ rateLimit: false, logger, ...database?.options, ...options });
  const call: Harness['call'] = async (path, init = {}) => {
    const res = await fetch(`${server.apiUrl}${path}`, init);
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, text, json };
  };
  return {
    server,
    logs,
    call,
    async createInbox(body = {}, headers = {}) {
      const res = await call('/inboxes', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
      if (res.status !== 200) throw new Error(`POST /inboxes: ${res.status} ${res.text}`);
      return (res.json as { data: CreatedInbox }).data;
    },
    async listAll(inbox) {
      const items: MessageSummary[] = [];
      let cursor: string | null = null;
      do {
        const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const res = await call(`/inboxes/${inbox.id}/messages?limit=100${q}`, { headers: { 'x-inbox-token': inbox.token } });
        if (res.status !== 200) throw new Error(`list ${inbox.id}: ${res.status} ${res.text}`);
        const page = (res.json as { data: { items: MessageSummary[]; nextCursor: string | null } }).data;
        items.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      return items;
    },
    async close() {
      await server.close();
      await database?.drop();
    },
  };
}

/** A test with a started server (`harnessOptions` to tune it), closed after the test. */
export const test = base.extend<{ storageBackend: BackendName; harnessOptions: StartServerOptions; harness: Harness }>({
  /** The project's storage backend; the test is skipped when it is PostgreSQL and none is reachable. */
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as the first argument
  storageBackend: [async ({}, use) => use(projectBackend()), { auto: true }],
  harnessOptions: [{}, { option: true }],
  harness: async ({ harnessOptions }, use) => {
    const harness = await startHarness(harnessOptions);
    try {
      await use(harness);
    } finally {
      await harness.close();
    }
  },
});
export { expect } from '@playwright/test';

/** One SMTP reply: the code and the text of every line. */
export interface Reply {
  code: number;
  lines: string[];
  text: string;
}

/**
 * A raw SMTP conversation over one socket: the test writes exact bytes and
 * reads each reply as the server sent it.
 */
export class RawSmtp {
  readonly socket: net.Socket;
  private buffer = '';
  private readonly replies: Reply[] = [];
  private waiters: Array<() => void> = [];
  /** Resolves when the server closed the connection (or it failed). */
  readonly closed: Promise<void>;
  isClosed = false;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let lines: string[] = [];
      for (;;) {
        const end = this.buffer.indexOf('\r\n');
        if (end < 0) break;
        const line = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        lines.push(line);
        if (/^\d{3} /.test(line) || /^\d{3}$/.test(line)) {
          this.replies.push({ code: Number(line.slice(0, 3)), lines, text: lines.join('\n') });
          lines = [];
        }
      }
      if (lines.length > 0) this.buffer = `${lines.map((l) => `${l}\r\n`).join('')}${this.buffer}`;
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      const done = () => {
        this.isClosed = true;
        this.wake();
        resolve();
      };
      socket.on('close', done);
      socket.on('error', done);
    });
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /**
   * Opens a conversation; `localAddress` binds the client end (another loopback
   * address, e.g. 127.0.0.2, is another client), `proxyFrom` first sends a
   * PROXY protocol v1 header naming that address as the client, as a balancer does.
   */
  static connect(port: number, host = '127.0.0.1', options: { localAddress?: string; proxyFrom?: string } = {}): Promise<RawSmtp> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host, ...(options.localAddress ? { localAddress: options.localAddress } : {}) }, () => {
        if (options.proxyFrom) socket.write(`PROXY TCP4 ${options.proxyFrom} ${host} 40000 ${port}\r\n`);
        resolve(new RawSmtp(socket));
      });
      socket.once('error', reject);
    });
  }

  /** Goes on over another socket of the same connection (a TLS socket made on it after STARTTLS). */
  static over(socket: net.Socket): RawSmtp {
    return new RawSmtp(socket);
  }

  /** The next reply; rejects if the connection closes first. */
  async reply(): Promise<Reply> {
    for (;;) {
      const next = this.replies.shift();
      if (next) return next;
      if (this.isClosed) throw new Error(`SMTP connection closed while waiting for a reply (unparsed: ${JSON.stringify(this.buffer.slice(0, 200))})`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  write(data: string | Uint8Array): void {
    this.socket.write(typeof data === 'string' ? Buffer.from(data, 'latin1') : data);
  }

  /** Sends one command line and reads its reply. */
  async command(line: string): Promise<Reply> {
    this.write(`${line}\r\n`);
    return this.reply();
  }

  /** Greeting and EHLO. */
  async hello(): Promise<Reply> {
    const greeting = await this.reply();
    if (greeting.code !== 220) throw new Error(`expected a 220 greeting, got ${greeting.text}`);
    return this.command('EHLO adversary.test');
  }

  end(): void {
    this.socket.destroy();
  }
}

/** A test message as raw RFC 5322 bytes (CRLF line endings). */
export function rawMessage(opts: { to: string; from?: string; subject: string; body?: string; headers?: string[] }): string {
  const lines = [
    `From: ${opts.from ?? 'sender@adversary.test'}`,
    `To: ${opts.to}`,
    `Subject: ${opts.subject}`,
    `Message-ID: <${sha256(opts.subject + opts.to).slice(0, 24)}@adversary.test>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    ...(opts.headers ?? []),
    '',
    opts.body ?? `Body of ${opts.subject}`,
    '',
  ];
  return lines.join('\r\n');
}

/** Dot-stuffs a message and appends the end of data. */
export function dataOf(raw: string): string {
  return `${raw.replace(/(^|\r\n)\./g, '$1..')}${raw.endsWith('\r\n') ? '' : '\r\n'}.\r\n`;
}

/** Sends one message in one raw conversation; returns the reply to the end of data. */
export async function sendRaw(port: number, from: string, to: string[], raw: string): Promise<Reply> {
  const smtp = await RawSmtp.connect(port);
  try {
    await smtp.hello();
    const mail = await smtp.command(`MAIL FROM:<${from}>`);
    if (mail.code !== 250) return mail;
    for (const rcpt of to) {
      const r = await smtp.command(`RCPT TO:<${rcpt}>`);
      if (r.code !== 250) return r;
    }
    const data = await smtp.command('DATA');
    if (data.code !== 354) return data;
    smtp.write(dataOf(raw));
    const reply = await smtp.reply();
    smtp.write('QUIT\r\n');
    return reply;
  } finally {
    smtp.end();
  }
}

/** Raw SSE reader over fetch: parsed events, with the bytes as received. */
export interface SseEvent {
  event: string;
  id: string | null;
  data: string;
}

export async function openStream(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<{ status: number; events: AsyncGenerator<SseEvent | { comment: string }> }> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  async function* events(): AsyncGenerator<SseEvent | { comment: string }> {
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          let id: string | null = null;
          const data: string[] = [];
          let comment: string | null = null;
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comment = line.slice(1).trim();
            else if (line.startsWith('event: ')) event = line.slice(7);
            else if (line.startsWith('id: ')) id = line.slice(4);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0 || id !== null) yield { event, id, data: data.join('\n') };
          else if (comment !== null) yield { comment };
        }
      }
    } catch (error) {
      if ((error as Error).name === 'AbortError') return;
      throw error;
    }
  }
  return { status: res.status, events: events() };
}
