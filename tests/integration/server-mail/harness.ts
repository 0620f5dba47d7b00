/**
 * A real local service for the mail tests: the project's store (SQLite in
 * memory, or a fresh PostgreSQL schema in `integration-postgres`), event bus,
 * the HTTP app on port 0 and the SMTP intake on port 0, torn down by `close()`.
 */
import net from 'node:net';
import { test as base } from '@playwright/test';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import pino from 'pino';
import { startServer } from '../../../src/server/start.ts';
import type { RunningServer, StartServerOptions } from '../../../src/server/start.ts';
import type { CreatedInbox, Message, MessageSummary } from '../../../src/wire/schemas.ts';
import { projectBackend, projectDatabase } from '../../support/backends.ts';
import type { BackendName } from '../../support/backends.ts';

/** The mail tests' `test`: skipped, saying why, in the PostgreSQL project when no PostgreSQL is reachable. */
export const test = base.extend<{ storageBackend: BackendName }>({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies as the first argument
  storageBackend: [async ({}, use) => use(projectBackend()), { auto: true }],
});
export { expect } from '@playwright/test';

export interface MailServer {
  server: RunningServer;
  apiUrl: string;
  smtpPort: number;
  /** Log lines written by the server (pino JSON objects). */
  logs: Array<Record<string, unknown>>;
  createInbox(body?: { localPart?: string; label?: string }): Promise<CreatedInbox>;
  api(path: string, token: string, init?: RequestInit): Promise<Response>;
  json<T>(path: string, token: string, init?: RequestInit): Promise<T>;
  listMessages(inbox: CreatedInbox): Promise<MessageSummary[]>;
  getMessage(inbox: CreatedInbox, id: string): Promise<Message>;
  /** The messages of an inbox once there are `count` of them (polls the API briefly). */
  waitForMessages(inbox: CreatedInbox, count: number): Promise<MessageSummary[]>;
  send(mail: SendMailOptions): Promise<{ accepted: unknown[]; rejected: unknown[]; response: string }>;
  close(): Promise<void>;
}

export async function startMailServer(options: StartServerOptions = {}): Promise<MailServer> {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  // The caller's own store or database wins over the project's.
  const database = options.store || options.db || options.dbPath ? null : await projectDatabase();
  const server = await startServer({ rateLimit: false, logger, ...database?.options, ...options });
  const { apiUrl } = server;
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true });

  const api = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${apiUrl}${path}`, { ...init, headers: { 'X-Inbox-Token': token, ...(init.headers as Record<string, string> | undefined) } });
  const json = async <T>(path: string, token: string, init?: RequestInit): Promise<T> => {
    const res = await api(path, token, init);
    const body = (await res.json()) as { data: T; error?: unknown };
    if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${res.status} ${JSON.stringify(body)}`);
    return body.data;
  };
  const listMessages = async (inbox: CreatedInbox) =>
    (await json<{ items: MessageSummary[] }>(`/inboxes/${inbox.id}/messages?limit=100`, inbox.token)).items;

  return {
    server,
    apiUrl,
    smtpPort: server.smtpPort,
    logs,
    async createInbox(body = {}) {
      const res = await fetch(`${apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const parsed = (await res.json()) as { data: CreatedInbox };
      if (res.status !== 200) throw new Error(`POST /inboxes: ${res.status} ${JSON.stringify(parsed)}`);
      return parsed.data;
    },
    api,
    json,
    listMessages,
    getMessage: (inbox, id) => json<Message>(`/messages/${id}`, inbox.token),
    async waitForMessages(inbox, count) {
      // Mail is committed before the 250, so this normally returns at once.
      for (let i = 0; i < 50; i++) {
        const items = await listMessages(inbox);
        if (items.length >= count) return items;
        await new Promise((r) => setTimeout(r, 20));
      }
      return listMessages(inbox);
    },
    send: (mail) => transport.sendMail(mail) as Promise<{ accepted: unknown[]; rejected: unknown[]; response: string }>,
    async close() {
      transport.close();
      await server.close();
      await database?.drop();
    },
  };
}

/**
 * A raw SMTP conversation over a socket: `reply()` resolves with the next
 * complete reply (multi-line replies joined), `write()` sends bytes as given.
 */
export async function rawSmtp(port: number): Promise<{
  reply(): Promise<{ code: number; text: string }>;
  write(data: string | Buffer): void;
  /** Sends a command line (CRLF added) and returns its reply. */
  command(line: string): Promise<{ code: number; text: string }>;
  close(): void;
  closed: Promise<void>;
}> {
  const socket = net.connect(port, '127.0.0.1');
  let buffer = '';
  const replies: Array<{ code: number; text: string }> = [];
  const waiters: Array<(r: { code: number; text: string }) => void> = [];
  let current: string[] = [];
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('data', (chunk) => {
    buffer += chunk.toString('utf8');
    let index: number;
    while ((index = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, index);
      buffer = buffer.slice(index + 2);
      current.push(line.slice(4));
      if (line[3] !== '-') {
        const reply = { code: Number(line.slice(0, 3)), text: current.join('\n') };
        current = [];
        const waiter = waiters.shift();
        if (waiter) waiter(reply);
        else replies.push(reply);
      }
    }
  });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  const reply = () => {
    const ready = replies.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise<{ code: number; text: string }>((resolve, reject) => {
      waiters.push(resolve);
      void closed.then(() => reject(new Error('SMTP connection closed before the reply')));
    });
  };
  return {
    reply,
    write: (data) => void socket.write(data),
    command(line) {
      socket.write(`${line}\r\n`);
      return reply();
    },
    close: () => socket.destroy(),
    closed,
  };
}
