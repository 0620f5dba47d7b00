/**
 * A local service composed by hand for the stream tests, so they can tune the
 * stream (ping interval, buffer bound), wrap the store and watch the bus. The
 * tuned stream routes are mounted under `/tuned/api/v1`, next to the app's own.
 */
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import { createParser } from 'eventsource-parser';
import type { EventSourceMessage } from 'eventsource-parser';
import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import pino from 'pino';
import { createApp } from '../../../src/server/app.ts';
import { resolveConfig } from '../../../src/server/context/config.ts';
import { createServerContext } from '../../../src/server/context/context.ts';
import type { ServerContext } from '../../../src/server/context/context.ts';
import type { EventBus } from '../../../src/server/events/types.ts';
import { createStreamRoutes } from '../../../src/server/routes/stream.handlers.ts';
import type { StreamRoutesOptions } from '../../../src/server/routes/stream.handlers.ts';
import { startSmtpIntake } from '../../../src/server/smtp/intake.ts';
import type { Store } from '../../../src/server/storage/contract/types.ts';
import { API_PREFIX } from '../../../src/wire/schemas.ts';
import { openProjectStore } from '../../support/backends.ts';
import type { CreatedInbox } from '../../../src/wire/schemas.ts';

export interface StreamServer {
  ctx: ServerContext;
  origin: string;
  logs: Array<Record<string, unknown>>;
  /** Current bus subscriptions (all inboxes). */
  subscriptions(): number;
  createInbox(): Promise<CreatedInbox>;
  send(mail: SendMailOptions): Promise<unknown>;
  /** Opens the tuned stream of an inbox. */
  open(inbox: CreatedInbox, options?: { lastEventId?: number; query?: string; read?: boolean }): Promise<StreamReader>;
  close(): Promise<void>;
}

export interface StreamReader {
  response: Response;
  /** The raw text received so far. */
  text(): string;
  events: EventSourceMessage[];
  comments: string[];
  retry: number | null;
  /** Resolves when `predicate` holds for what was received (checked after each chunk). */
  until(predicate: (reader: StreamReader) => boolean): Promise<void>;
  /** Resolves when the server ended the stream; `error` when it was cut. */
  ended: Promise<{ error: unknown }>;
  abort(): void;
}

export async function startStreamServer(
  options: { stream?: StreamRoutesOptions; wrapStore?: (store: Store) => Store } = {},
): Promise<StreamServer> {
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  const config = resolveConfig({ rateLimit: false });
  // The project's store and bus: SQLite in memory, or PostgreSQL in `integration-postgres`.
  const project = await openProjectStore();
  const baseStore = project.store;
  await baseStore.syncDomains(config.domains);
  const store = options.wrapStore ? options.wrapStore(baseStore) : baseStore;
  const inner = project.bus;
  let subscriptions = 0;
  const bus: EventBus = {
    publish: (event) => inner.publish(event),
    subscribeAll: (listener) => inner.subscribeAll(listener),
    subscribe(inboxId, listener) {
      subscriptions++;
      const off = inner.subscribe(inboxId, listener);
      let on = true;
      return () => {
        if (on) subscriptions--;
        on = false;
        off();
      };
    },
  };
  const ctx = createServerContext({ store, bus, config, logger });
  const app = createApp(ctx);
  app.route(`/tuned${API_PREFIX}`, createStreamRoutes(ctx, options.stream));
  const http: ServerType = await new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(server));
  });
  const address = http.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const smtp = await startSmtpIntake(ctx, { host: '127.0.0.1', port: 0 });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true });
  const readers = new Set<StreamReader>();

  return {
    ctx,
    origin,
    logs,
    subscriptions: () => subscriptions,
    async createInbox() {
      const res = await fetch(`${origin}${API_PREFIX}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return ((await res.json()) as { data: CreatedInbox }).data;
    },
    send: (mail) => transport.sendMail(mail),
    async open(inbox, { lastEventId, query = '', read = true } = {}) {
      const controller = new AbortController();
      const headers: Record<string, string> = { 'X-Inbox-Token': inbox.token, Accept: 'text/event-stream' };
      if (lastEventId !== undefined) headers['Last-Event-ID'] = String(lastEventId);
      const response = await fetch(`${origin}/tuned${API_PREFIX}/inboxes/${inbox.id}/stream${query}`, { headers, signal: controller.signal });
      let raw = '';
      const checks = new Set<() => void>();
      const reader: StreamReader = {
        response,
        text: () => raw,
        events: [],
        comments: [],
        retry: null,
        until(predicate) {
          return new Promise((resolve, reject) => {
            const check = () => {
              if (predicate(reader)) {
                checks.delete(check);
                resolve();
              }
            };
            checks.add(check);
            check();
            void reader.ended.then(() => {
              if (checks.has(check)) {
                checks.delete(check);
                reject(new Error(`stream ended before the condition held; received:\n${raw.slice(-2000)}`));
              }
            });
          });
        },
        ended: Promise.resolve({ error: null }),
        abort: () => controller.abort(),
      };
      const parser = createParser({
        onEvent: (event) => void reader.events.push(event),
        onComment: (comment) => void reader.comments.push(comment),
        onRetry: (retry) => void (reader.retry = retry),
      });
      reader.ended = (async () => {
        if (!read || !response.body) return { error: null };
        const decoder = new TextDecoder();
        try {
          for await (const chunk of response.body) {
            const text = decoder.decode(chunk as Uint8Array, { stream: true });
            raw += text;
            parser.feed(text);
            for (const check of [...checks]) check();
          }
          return { error: null };
        } catch (error) {
          return { error };
        }
      })();
      readers.add(reader);
      return reader;
    },
    async close() {
      for (const reader of readers) reader.abort();
      transport.close();
      await smtp.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        (http as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await project.close();
    },
  };
}
