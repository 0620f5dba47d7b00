/**
 * The drain of a node (SIGTERM under `inboxkit serve`): readiness fails
 * first; after the notice (the time a balancer needs to notice) new SMTP
 * sessions are answered 421 while the transactions in flight finish, event
 * streams end (their clients resume on another node from `Last-Event-ID`),
 * HTTP requests in flight finish; then the node closes. All of it within the
 * drain timeout: what is still open then is cut.
 *
 * @packageDocumentation
 */
import type { Server } from 'node:http';
import { drainHttp } from './http-server.ts';
import type { ServiceMetrics } from './metrics.ts';
import type { SmtpIntake } from './smtp/intake.ts';

/** What a drain works on. */
export interface DrainParts {
  noticeMs: number;
  timeoutMs: number;
  http: Server;
  smtp: SmtpIntake;
  metrics: ServiceMetrics;
  logger: { info(fields: object, message: string): void };
}

/** A node's drain: its state, and the drain itself (idempotent). */
export interface Drain {
  draining(): boolean;
  /** Drains; resolves when SMTP sessions and HTTP requests are done, or cut at the timeout. */
  run(): Promise<void>;
}

/** The drain of one node. */
export function createDrain(parts: DrainParts): Drain {
  let running: Promise<void> | null = null;
  const run = async () => {
    const started = Date.now();
    const deadline = started + parts.timeoutMs;
    parts.metrics.setDraining(true);
    parts.logger.info({ noticeMs: parts.noticeMs, timeoutMs: parts.timeoutMs }, 'drain: readiness fails from now on');
    if (parts.noticeMs > 0) await new Promise((resolve) => setTimeout(resolve, parts.noticeMs).unref());
    await Promise.all([parts.smtp.drain(Math.max(0, deadline - Date.now())), drainHttp(parts.http, deadline)]);
    parts.logger.info({ tookMs: Date.now() - started }, 'drain: done');
  };
  return {
    draining: () => running !== null,
    run: () => (running ??= run()),
  };
}
