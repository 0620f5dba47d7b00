/**
 * Opening an event stream: the one place where a request becomes a
 * connection, for both streams. A `HEAD` opens nothing; the access the
 * connection re-checks is built here by one rule; admission and release of a
 * connection have their hooks here.
 *
 * @packageDocumentation
 */
import type { Context } from 'hono';
import { accessDeadline, checkAccess, checkCredential, concernsPrincipal } from '../auth/access.ts';
import type { Principal } from '../auth/principal.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { LiveStreams } from '../context/live-streams.ts';
import type { BusEvent } from '../events/types.ts';
import { eventStreamResponse } from '../http/sse.ts';
import type { InboxRecord } from '../storage/contract/types.ts';
import { SseConnection } from './connection.ts';
import type { ConnectionAccess, ConnectionOptions, ConnectionTimers, StreamPolicy } from './connection.ts';
import type { ChunkFraming, NodeOutgoing } from './socket-sink.ts';

/** The settings both streams share (`ctx.config.stream` and the routers' options). */
export interface StreamSettings {
  /**
   * Interval of the `: ping` comment (each ping also checks the credential again).
   * @defaultValue 15_000
   */
  pingIntervalMs?: number;
  /**
   * Bytes a connection may have queued (not yet taken by the socket) before it
   * is dropped as too slow; the client reconnects (an inbox stream resumes
   * with Last-Event-ID).
   * @defaultValue 1 MiB
   */
  maxBufferedBytes?: number;
  /** The timers of the connections; tests inject counting ones. @defaultValue Node's, unref'd */
  timers?: ConnectionTimers;
}

/**
 * The access a stream re-checks, by one rule for both streams: when the
 * stream is bound to one inbox (the inbox stream, or `GET /me/events` opened
 * with that inbox's token) the inbox's expiry and deletion end it at once, as
 * the credential's own end does; otherwise only the credential is checked.
 */
export function streamAccess(ctx: ServerContext, principal: Principal, inbox: Pick<InboxRecord, 'id' | 'expiresAt'> | null): ConnectionAccess {
  return {
    deadline: accessDeadline(principal, inbox?.expiresAt ?? null),
    inboxId: inbox?.id ?? null,
    check: (hint) => (inbox ? checkAccess(ctx, principal, inbox.id, hint) : checkCredential(ctx, principal, hint)),
    concerns: (event) => concernsPrincipal(principal, event.userId, event.reason),
    now: () => ctx.now(),
  };
}

/** What {@link openEventStream} needs to open one connection. */
export interface OpenStreamRequest {
  /** Names the stream in logs (`stream`, `events`). */
  label: string;
  logger: ServerContext['logger'];
  logFields?: Record<string, unknown>;
  settings: StreamSettings;
  access: ConnectionAccess;
  /** Subscribes the connection's listener to the bus; returns the unsubscribe function. */
  subscribe(listener: (event: BusEvent) => void): () => void;
  /** Builds the stream's policy; not called for a HEAD. */
  policy(): StreamPolicy;
  /** Room beyond the bound for one large event (a whole message). */
  extraBytes?: number;
  /**
   * Frames the connection's direct writes as HTTP/1.1 chunks: one per router,
   * so that a message event shared by its streams is framed once.
   * @defaultValue one per connection
   */
  framing?: ChunkFraming;
  /**
   * Admission of the connection: called once the request is known to open
   * one (never for a `HEAD`), before anything is subscribed. Throw an
   * `HttpError` to refuse it (a cap on open streams per credential); the
   * function it returns runs once when the connection ends, however it ends.
   * @defaultValue every connection is admitted
   */
  admit?: () => () => void;
  /** The node's open streams: the connection is noted there until it ends (a drain hands it over). */
  live?: LiveStreams;
  /** Whether the client resumes from a `Last-Event-ID` (counted by the metrics). */
  resumed?: boolean;
}

/** The Node response under @hono/node-server (destroyed directly to drop a slow client, written directly once the headers are out). */
function outgoingOf(c: Context<AppEnv>): NodeOutgoing | undefined {
  return (c.env as { outgoing?: NodeOutgoing } | undefined)?.outgoing;
}

/**
 * Answers a stream request once the route has validated it and checked that
 * the caller may open it. A `HEAD` gets the stream's status and headers and
 * no body, and opens nothing (no subscription, no timer): Hono answers HEAD
 * by running the GET handler, so without this rule every HEAD would leave a
 * connection nobody reads.
 *
 * Admission is one call: `request.admit` acquires (or throws to refuse)
 * before the connection exists, and what it returns is the connection's
 * `onClose`, which runs once, however the connection ends.
 */
export function openEventStream(c: Context<AppEnv>, request: OpenStreamRequest): Response {
  if (c.req.method === 'HEAD') return eventStreamResponse(null);
  const admitted = request.admit?.();
  let forget: () => void = () => {};
  const release = () => {
    forget();
    admitted?.();
  };
  const options: ConnectionOptions = {
    label: request.label,
    logFields: request.logFields,
    logger: request.logger,
    pingIntervalMs: request.settings.pingIntervalMs ?? 15_000,
    maxBufferedBytes: request.settings.maxBufferedBytes ?? 1024 * 1024,
    timers: request.settings.timers,
    access: request.access,
    outgoing: outgoingOf(c),
    framing: request.framing,
    onClose: release,
    ...(request.live ? { note: request.live.note } : {}),
  };
  const connection = new SseConnection(options, request.extraBytes ?? 0);
  if (request.live && !connection.closed) {
    forget = request.live.add(connection);
    request.live.note(request.resumed ? 'resumed' : 'opened');
  }
  connection.open(request.subscribe, request.policy());
  return eventStreamResponse(connection.body);
}
