/**
 * The service's metrics in the Prometheus text format, by prom-client (an
 * optional peer dependency, loaded only when metrics are on): mail accepted
 * and refused by reason, delivery latency, open streams and SMTP sessions,
 * caps reached, database errors and the drain state. One registry per
 * service, never prom-client's global one.
 *
 * @packageDocumentation
 */
import type * as PromClientModule from 'prom-client';

import { PROVIDER_IDS } from '../wire/providers.ts';

type PromClient = typeof PromClientModule;

/** Why the SMTP intake refused a recipient, a message or a connection. */
export type RefusedReason =
  | 'unknown_recipient'
  | 'fault'
  | 'greylisted'
  | 'too_large'
  | 'lookup_failed'
  | 'storage_failed'
  | 'draining'
  | 'cap_total'
  | 'cap_per_address'
  | 'auth_failed';

/** What the service reports to its metrics; every method is cheap and never throws. */
export interface ServiceMetrics {
  /** A message was stored: `copies` inbox copies. */
  accepted(copies: number): void;
  /** A recipient, message or connection was refused. */
  refused(reason: RefusedReason): void;
  /** The intake stored `copies` inbox copies that came through `channel` (`smtp`, or a provider's id). */
  stored(channel: string, copies: number): void;
  /** Seconds from the end of DATA to the copies stored and published to this node's streams. */
  delivered(seconds: number): void;
  /** A caller reached a cap (`smtp_connections`, `smtp_connections_per_address`, `http_429`). */
  capReached(cap: string): void;
  /** The database failed (`source`: `smtp`, `http`, `pool`). */
  databaseError(source: string): void;
  /** Whether the node is draining. */
  setDraining(draining: boolean): void;
  /** The text exposition, or null when metrics are off. */
  render(): Promise<{ contentType: string; body: string } | null>;
}

/** The gauges read at each scrape. */
export interface MetricsGauges {
  openStreams(): number;
  openSmtpSessions(): number;
}

/** Metrics that record nothing (metrics off). */
export function noMetrics(): ServiceMetrics {
  return {
    accepted() {},
    refused() {},
    stored() {},
    delivered() {},
    capReached() {},
    databaseError() {},
    setDraining() {},
    render: () => Promise.resolve(null),
  };
}

/** Loads prom-client, or explains how to get it. */
async function loadPromClient(): Promise<PromClient> {
  try {
    return await import('prom-client');
  } catch (error) {
    throw new Error('inboxkit: metrics need the optional package prom-client; install it next to inboxkit (npm install prom-client), or leave metrics off.', { cause: error });
  }
}

/**
 * Creates the metrics of one service on a registry of its own.
 *
 * @example
 * ```ts
 * const metrics = await createMetrics({ openStreams: () => 0, openSmtpSessions: () => 0 });
 * metrics.accepted(1);
 * const text = await metrics.render(); // text.body: '# HELP inboxkit_mail_accepted_total …'
 * ```
 */
export async function createMetrics(gauges: MetricsGauges): Promise<ServiceMetrics> {
  const prom = await loadPromClient();
  const registry = new prom.Registry();
  prom.collectDefaultMetrics({ register: registry, prefix: 'inboxkit_process_' });
  const accepted = new prom.Counter({ name: 'inboxkit_mail_accepted_total', help: 'Inbox copies of messages stored by the SMTP intake of this node.', registers: [registry] });
  const refused = new prom.Counter({ name: 'inboxkit_mail_refused_total', help: 'Recipients, messages and connections the SMTP intake of this node refused, by reason.', labelNames: ['reason'], registers: [registry] });
  const stored = new prom.Counter({ name: 'inboxkit_intake_stored_total', help: 'Inbox copies stored by this node, by the channel they came through (smtp, or an SMS or email provider API).', labelNames: ['channel'], registers: [registry] });
  for (const channel of ['smtp', ...PROVIDER_IDS]) stored.inc({ channel }, 0);
  const latency = new prom.Histogram({
    name: 'inboxkit_delivery_latency_seconds',
    help: 'From the end of DATA to the copies stored and published to the event streams of this node.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const caps = new prom.Counter({ name: 'inboxkit_caps_reached_total', help: 'Requests and connections refused because a cap was reached, by cap.', labelNames: ['cap'], registers: [registry] });
  const dbErrors = new prom.Counter({ name: 'inboxkit_database_errors_total', help: 'Database failures seen by this node, by where.', labelNames: ['source'], registers: [registry] });
  const draining = new prom.Gauge({ name: 'inboxkit_draining', help: '1 while this node drains (readiness fails), else 0.', registers: [registry] });
  new prom.Gauge({
    name: 'inboxkit_streams_open',
    help: 'Event streams open on this node.',
    registers: [registry],
    collect() {
      this.set(gauges.openStreams());
    },
  });
  new prom.Gauge({
    name: 'inboxkit_smtp_sessions_open',
    help: 'SMTP sessions open on this node.',
    registers: [registry],
    collect() {
      this.set(gauges.openSmtpSessions());
    },
  });
  for (const reason of ['unknown_recipient', 'fault', 'greylisted', 'too_large', 'storage_failed', 'draining', 'cap_total', 'cap_per_address']) refused.inc({ reason }, 0);
  draining.set(0);
  return {
    accepted: (copies) => accepted.inc(copies),
    refused: (reason) => refused.inc({ reason }),
    stored: (channel, copies) => stored.inc({ channel }, copies),
    delivered: (seconds) => latency.observe(seconds),
    capReached: (cap) => caps.inc({ cap }),
    databaseError: (source) => dbErrors.inc({ source }),
    setDraining: (on) => draining.set(on ? 1 : 0),
    render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
  };
}

/** The SMTP intake's observer that feeds the metrics: refusals by reason, caps reached, database failures. */
export function intakeObserver(metrics: ServiceMetrics): { accepted(copies: number, seconds: number): void; refused(reason: RefusedReason): void } {
  return {
    accepted(copies, seconds) {
      metrics.accepted(copies);
      metrics.delivered(seconds);
    },
    refused(reason) {
      metrics.refused(reason);
      if (reason === 'cap_total') metrics.capReached('smtp_connections');
      if (reason === 'cap_per_address') metrics.capReached('smtp_connections_per_address');
      if (reason === 'storage_failed' || reason === 'lookup_failed') metrics.databaseError('smtp');
    },
  };
}
