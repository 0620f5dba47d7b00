/**
 * The drain of a node (SIGTERM under `inboxkit serve`): readiness fails
 * first; after the notice (the time a balancer needs to notice) event
 * streams are handed over (told `retry: 20` and `event: handover`, and ended
 * once their clients left or after {@link HANDOVER_GRACE_MS}: inboxkit's
 * clients open their next connection through the balancer at once and
 * leave this one once the next is live, others resume from `Last-Event-ID`
 * when it ends), new SMTP sessions
 * are answered 421 while the transactions in flight finish, new app requests
 * are answered 503 while those in flight finish; `/livez`, `/readyz` and
 * `/metrics` answer to the end. Once nothing is left (or at the drain
 * timeout, where what is open is cut) the node waits for one more scrape of
 * `/metrics` when its counters changed since the last one (so Prometheus
 * sees its last counts), never past the timeout. The caller then closes
 * everything at once: the whole drain, exit included, fits the timeout
 * plus a second.
 *
 * @packageDocumentation
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { LiveStreams } from './context/live-streams.ts';
import { trustedPeer } from './http/client-address.ts';
import { finishHttp } from './http-server.ts';
import type { FrontHandler } from './http-server.ts';
import type { ServiceMetrics } from './metrics.ts';
import type { SmtpIntake } from './smtp/intake.ts';

/** The `retry:` (ms) a handed-over stream is told: its client reconnects at once, through the balancer, to another node. */
export const HANDOVER_RETRY_MS = 20;

/**
 * How long a handed-over stream still delivers after its `event: handover`:
 * the time its client has to open its next connection (through the
 * balancer, on another node, with the replay from `Last-Event-ID`) before
 * this one ends, so a reconnection slowed by load costs the stream no events.
 */
export const HANDOVER_GRACE_MS = 2000;

/** What a drain works on. */
export interface DrainParts {
  noticeMs: number;
  timeoutMs: number;
  http: Server;
  smtp: SmtpIntake;
  streams: LiveStreams;
  metrics: ServiceMetrics;
  logger: { info(fields: object, message: string): void };
}

/** What a drain did, for its log line and the metrics. */
export interface DrainReport {
  seconds: number;
  handedOverStreams: number;
  cutSmtpSessions: number;
  cutHttpRequests: number;
}

/** A node's drain: its state, and the drain itself (idempotent). */
export interface Drain {
  /** Whether the node drains (readiness fails). */
  draining(): boolean;
  /** Whether the notice is over: new app requests are refused (503) and new SMTP sessions 421. */
  refusing(): boolean;
  /** Drains; resolves when everything is done or cut and the last counts were scraped, within the timeout. */
  run(): Promise<DrainReport>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());

/** The drain of one node. */
export function createDrain(parts: DrainParts): Drain {
  let running: Promise<DrainReport> | null = null;
  let refusing = false;
  const run = async (): Promise<DrainReport> => {
    const started = Date.now();
    const deadline = started + parts.timeoutMs;
    parts.metrics.setDraining(true);
    parts.logger.info({ noticeMs: parts.noticeMs, timeoutMs: parts.timeoutMs }, 'drain: readiness fails from now on');
    await sleep(Math.min(parts.noticeMs, parts.timeoutMs));
    refusing = true;
    let handedOverStreams = 0;
    const handOver = () => void (handedOverStreams += parts.streams.handOver(HANDOVER_RETRY_MS, HANDOVER_GRACE_MS));
    const [, left] = await Promise.all([parts.smtp.drain(Math.max(0, deadline - Date.now())), finishHttp(parts.http, deadline, handOver, HANDOVER_GRACE_MS)]);
    const cutSmtpSessions = parts.smtp.cut();
    const report = { seconds: (Date.now() - started) / 1000, handedOverStreams, cutSmtpSessions, cutHttpRequests: left };
    parts.metrics.drained(report);
    await parts.metrics.scraped(deadline);
    parts.logger.info({ ...report, tookMs: Date.now() - started }, 'drain: done');
    return report;
  };
  return {
    draining: () => running !== null,
    refusing: () => refusing,
    run: () => (running ??= run()),
  };
}

/**
 * The front handler of a node: the operator's endpoints (`probes`) first,
 * always; then, once a drain's notice is over, every other request but
 * `/healthz` (a supervisor's check, which still answers) is
 * answered 503 `service_unavailable` with `Retry-After: 1` and the
 * connection closed (a client that came directly retries, and reaches
 * another node). One that came through the balancer (`fromBalancer`: its
 * peer is a `--trust-proxy` address and it carries `X-Forwarded-For`), sent
 * before the balancer's checks noticed the drain, is closed unanswered
 * instead, so that the balancer sends it to another node at once.
 */
export function drainingFront(probes: FrontHandler, drain: () => Drain | null, fromBalancer: (request: IncomingMessage) => boolean = () => false): FrontHandler {
  return (request: IncomingMessage, response: ServerResponse) => {
    if (probes(request, response)) return true;
    if (!drain()?.refusing() || (request.url ?? '').split('?')[0] === '/healthz') return false;
    if (fromBalancer(request)) {
      // Nothing sent: the balancer retries the request on another node (HAProxy's retry-on empty-response).
      request.socket.destroy();
      return true;
    }
    const body = JSON.stringify({ error: { code: 'service_unavailable', message: 'This node is shutting down (draining): retry after Retry-After, and another node will answer.' } });
    response.writeHead(503, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'Retry-After': '1', Connection: 'close', 'Cache-Control': 'no-store' });
    response.end(request.method === 'HEAD' ? undefined : body);
    return true;
  };
}

/** Whether a request came through a balancer: its peer is a `--trust-proxy` address, and it carries `X-Forwarded-For`. */
export function viaBalancer(trustProxy: readonly string[]): (request: IncomingMessage) => boolean {
  const trusted = trustedPeer(trustProxy);
  return (request) => request.headers['x-forwarded-for'] !== undefined && trusted(request.socket.remoteAddress);
}
