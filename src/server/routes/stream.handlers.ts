/**
 * The event stream's behaviour (definition in `stream.routes.ts`; the
 * connection and its policy in `src/server/streams/`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono, RouteHandler } from '@hono/zod-openapi';
import { loadVisibleInbox } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { credentialKeyOf, ownStreamCapOf } from '../auth/caps.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { HttpError } from '../http/errors.ts';
import { createRouter } from '../http/router.ts';
import type { MessageRecord, MessageSummaryRecord } from '../storage/contract/types.ts';
import { createMessageFrames, MAX_WHOLE_MESSAGE_EVENT_BYTES } from '../streams/frames.ts';
import { inboxStreamPolicy } from '../streams/inbox-stream.ts';
import type { InboxSource } from '../streams/inbox-stream.ts';
import { openEventStream, streamAccess } from '../streams/open.ts';
import { createChunkFraming } from '../streams/socket-sink.ts';
import type { StreamSettings } from '../streams/open.ts';
import { streamRoute } from './stream.routes.ts';

/** Options of {@link createStreamRoutes}. */
export interface StreamRoutesOptions extends StreamSettings {
  /**
   * Messages read from the store per replay page.
   * @defaultValue 200
   */
  replayPageSize?: number;
}

/** A Last-Event-ID value as a seq: a non-negative integer of at most 15 digits, or null when absent or empty. */
export function parseLastEventId(value: string | undefined): number | null {
  if (value === undefined || value === '') return null;
  if (!/^[0-9]{1,15}$/.test(value)) {
    throw new HttpError('validation_error', `Last-Event-ID: must be the seq (a non-negative integer) of the last message event received, got ${JSON.stringify(value.slice(0, 40))}.`);
  }
  return Number(value);
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
 * Where an inbox stream reads its inbox. Built apart from the request
 * handler: a closure made there would keep the request's whole context (Hono's
 * `c`, the request, its headers) for as long as the stream is open.
 */
function inboxSource(ctx: ServerContext, inboxId: string, whole: boolean): InboxSource {
  return {
    lastSeq: async () => (await ctx.store.findInboxById(inboxId))?.lastSeq ?? null,
    after: (afterSeq, limit) => readAfter(ctx, inboxId, afterSeq, limit, whole),
  };
}

/**
 * `GET /inboxes/{id}/stream`: the Server-Sent Events stream of an inbox, as the
 * contract describes it. The bus is subscribed before the replay is read, and
 * events are de-duplicated by seq, so no message falls between replay and
 * live; a skipped seq or a bus `resync` makes the connection read the store
 * after its last seq, so none is missed either.
 */
function openInboxStream(ctx: ServerContext, options: StreamRoutesOptions): RouteHandler<typeof streamRoute, AppEnv> {
  const replayPageSize = options.replayPageSize ?? 200;
  const frames = createMessageFrames(ctx.html);
  const framing = createChunkFraming();
  const logger = ctx.logger.child({ component: 'stream' });
  return async (c) => {
    const { id } = c.req.valid('param');
    const query = c.req.valid('query');
    const lastEventId = parseLastEventId(c.req.header('last-event-id') ?? query.lastEventId);
    const whole = includesMessage(query.include);
    const principal = c.var.principal;
    const inbox = await loadVisibleInbox(ctx, principal, id);
    const address = clientAddressOf(c);
    return openEventStream(c, {
      label: 'stream',
      logger,
      logFields: { inboxId: inbox.id },
      admit: () => ctx.streamCaps.acquire(credentialKeyOf(principal), address, ownStreamCapOf(principal)),
      live: ctx.liveStreams,
      resumed: lastEventId !== null,
      settings: options,
      access: streamAccess(ctx, principal, inbox),
      subscribe: (listener) => ctx.bus.subscribe(inbox.id, listener),
      // A whole message may take up to 1 MiB in one event: the bound leaves room for one beyond the usual queue.
      extraBytes: whole ? MAX_WHOLE_MESSAGE_EVENT_BYTES : 0,
      framing,
      policy: () => inboxStreamPolicy(inbox.id, inboxSource(ctx, inbox.id, whole), { replayPageSize, frames, whole, lastEventId }),
    });
  };
}

/** The event stream's route (paths relative to `/api/v1`). */
export function createStreamRoutes(ctx: ServerContext, options: StreamRoutesOptions = {}): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  app.openapi(streamRoute, openInboxStream(ctx, options));
  return app;
}
