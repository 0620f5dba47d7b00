/**
 * The event stream's behaviour (definition in `stream.routes.ts`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { checkAccess } from '../auth/access.ts';
import { loadVisibleInbox } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { credentialKeyOf } from '../auth/caps.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { HttpError } from '../http/errors.ts';
import { createRouter } from '../http/router.ts';
import { eventStreamResponse } from '../http/sse.ts';
import type { MessageRecord, MessageSummaryRecord } from '../storage/types.ts';
import { StreamConnection } from './stream.connection.ts';
import type { ConnectionSettings, StreamAccess, StreamSource } from './stream.connection.ts';
import { createMessageFrames } from './stream.payload.ts';
import { streamRoute } from './stream.routes.ts';

/** Options of {@link createStreamRoutes}. */
export interface StreamRoutesOptions {
  /**
   * Interval of the `: ping` comment.
   * @defaultValue 15_000
   */
  pingIntervalMs?: number;
  /**
   * Bytes a connection may have queued (not yet taken by the socket) before it
   * is dropped as too slow; the client resumes with Last-Event-ID.
   * @defaultValue 1 MiB
   */
  maxBufferedBytes?: number;
  /**
   * Messages read from the store per replay page.
   * @defaultValue 200
   */
  replayPageSize?: number;
}

/** A Last-Event-ID value as a seq: a non-negative integer of at most 15 digits, or null when absent or empty. */
export function parseLastEventId(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  const trimmed = value;
  if (!/^[0-9]{1,15}$/.test(trimmed)) {
    throw new HttpError('validation_error', `Last-Event-ID: must be the seq (a non-negative integer) of the last message event received, got ${JSON.stringify(value.slice(0, 40))}.`);
  }
  return Number(trimmed);
}

/** Whether `?include=` asks for whole messages (a comma-separated list; other values are ignored). */
function includesMessage(include: string | undefined): boolean {
  return include !== undefined && include.split(',').some((part) => part.trim() === 'message');
}

/**
 * The messages of an inbox after a seq, oldest first: whole (read one at a
 * time; a message deleted meanwhile goes as its summary) when the stream asked
 * for `include=message`, otherwise their summaries.
 */
async function readAfter(ctx: ServerContext, inboxId: string, afterSeq: number, limit: number, whole: boolean): Promise<(MessageSummaryRecord | MessageRecord)[]> {
  const page = await ctx.store.listMessagesAfterSeq(inboxId, afterSeq, limit);
  if (!whole) return page;
  const records: (MessageSummaryRecord | MessageRecord)[] = [];
  for (const message of page) records.push((await ctx.store.findMessage(message.id)) ?? message);
  return records;
}

/**
 * `GET /inboxes/{id}/stream`: the Server-Sent Events stream of an inbox, as the
 * contract describes it. The bus is subscribed before the replay is read, and
 * events are de-duplicated by seq, so no message falls between replay and
 * live; a skipped seq or a bus `resync` makes the connection read the store
 * after its last seq, so none is missed either. Each connection has a bounded queue: a client that does not keep up is
 * disconnected instead of slowing anyone else. A closed connection
 * unsubscribes and stops its timer.
 */
export function createStreamRoutes(ctx: ServerContext, options: StreamRoutesOptions = {}): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  const settings: ConnectionSettings = {
    pingIntervalMs: options.pingIntervalMs ?? 15_000,
    maxBufferedBytes: options.maxBufferedBytes ?? 1024 * 1024,
    replayPageSize: options.replayPageSize ?? 200,
    logger: ctx.logger.child({ component: 'stream' }),
    frames: createMessageFrames(),
  };

  app.openapi(streamRoute, async (c) => {
    const { id } = c.req.valid('param');
    const query = c.req.valid('query');
    const lastEventId = parseLastEventId(c.req.header('last-event-id') ?? query.lastEventId);
    const whole = includesMessage(query.include);
    const principal = c.var.principal;
    const inbox = await loadVisibleInbox(ctx, principal, id);
    const outgoing = (c.env as { outgoing?: { destroy?: () => void } } | undefined)?.outgoing;
    const access: StreamAccess = {
      principal,
      inboxExpiresAt: inbox.expiresAt,
      check: (hint) => checkAccess(ctx, principal, inbox.id, hint),
      now: () => ctx.now(),
    };
    const source: StreamSource = {
      lastSeq: async () => (await ctx.store.findInboxById(inbox.id))?.lastSeq ?? null,
      after: (afterSeq, limit) => readAfter(ctx, inbox.id, afterSeq, limit, whole),
    };
    const release = ctx.streamCaps.acquire(credentialKeyOf(principal), clientAddressOf(c));
    const connection = new StreamConnection(inbox.id, settings, access, source, outgoing, whole);
    connection.onClose = release;
    connection.write('retry: 2000\n\n');
    connection.subscribe(ctx.bus);
    // A revocation committed between the credential check above and the
    // subscription published its event to no one: check once more now.
    connection.verify();
    connection.start(lastEventId).catch((error: unknown) => {
      settings.logger.error({ err: error, inboxId: inbox.id }, 'stream: replay failed');
      connection.drop(error instanceof Error ? error : new Error(String(error)));
    });

    return eventStreamResponse(connection.body);
  });

  return app;
}
