/**
 * The webhooks the provider APIs call back (Twilio's `StatusCallback`,
 * Vonage's and Plivo's delivery receipts): a POST, signed as the provider
 * signs it, within bounds a caller cannot lift.
 *
 * Where: on a local service, loopback hosts only (the app under test runs
 * beside it), and never one of the service's own ports; on a shared service
 * nothing unless the operator allows it (`--webhook-allow host:port`), since
 * a guest's app is not on the service's machine and its loopback holds the
 * service's own ports, the balancer's and the database's. How much: per
 * caller and per node, webhooks in flight and per minute; each has a
 * timeout and follows no redirect. A webhook over a bound is not sent, and
 * logged.
 *
 * @packageDocumentation
 */
import { isLoopbackHost } from '../../wire/defaults.ts';

/** How long a webhook may take before it is given up. */
export const CALLBACK_TIMEOUT_MS = 10_000;

/** The bounds of the webhooks one node sends. */
export interface WebhookLimits {
  /** Webhooks in flight at once for one caller. @defaultValue 16 */
  perCallerInFlight: number;
  /** Webhooks in flight at once on this node. @defaultValue 128 */
  perNodeInFlight: number;
  /** Webhooks one caller may have sent in a minute. @defaultValue 600 */
  perCallerPerMinute: number;
  /** How long one may take. @defaultValue 10 s */
  timeoutMs: number;
}

/** The defaults of {@link WebhookLimits}: far above what a test suite's app asks, far below what holds a node. */
export const DEFAULT_WEBHOOK_LIMITS: WebhookLimits = { perCallerInFlight: 16, perNodeInFlight: 128, perCallerPerMinute: 600, timeoutMs: CALLBACK_TIMEOUT_MS };

/** Where webhooks may go. */
export interface WebhookPolicy {
  /** A shared service calls only what `allow` lists. */
  shared: boolean;
  /** Targets the operator allows (`host:port`, or `host` for any port), besides loopback on a local service. */
  allow: readonly string[];
  /** The service's own ports (HTTP, SMTP …), never called on loopback; read at each call (known once listening). */
  ownPorts(): readonly number[];
}

/** The node's webhook sender. */
export interface Webhooks {
  /** POSTs a form, charged to `caller`; rejects, naming why, when the target or a bound refuses it. */
  postForm(caller: string, url: string, params: Record<string, string>, headers: Record<string, string>): Promise<{ status: number; body: string }>;
  /** POSTs JSON, charged to `caller`; rejects as `postForm` does. */
  postJson(caller: string, url: string, json: Record<string, string>): Promise<{ status: number; body: string }>;
  /** POSTs a body as given (a provider's signed event JSON) with its headers, charged to `caller`; rejects as `postForm` does. */
  postBody(caller: string, url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }>;
  /** Why a URL would be refused as a target (not a bound: the place), or null when it may be called: to refuse a registration at once. */
  problemOf(url: string): string | null;
  /** Webhooks in flight on this node. */
  inFlight(): number;
}

/** The port a URL names, or its scheme's. */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** Why a webhook URL is refused under `policy`, or null when it may be called. */
export function callbackProblem(url: string, policy: WebhookPolicy = { shared: false, allow: [], ownPorts: () => [] }): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not an absolute URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `${url} is not an http(s) URL`;
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = portOf(parsed);
  if (policy.allow.some((entry) => entry.toLowerCase() === host || entry.toLowerCase() === `${host}:${port}`)) return null;
  if (policy.shared) return `${parsed.host} is not a webhook target this shared service's operator allows (--webhook-allow host:port)`;
  if (!isLoopbackHost(parsed.hostname)) return `${parsed.hostname} is not a loopback host: the service calls back only the app beside it (localhost, 127.x.x.x, [::1]), or what --webhook-allow lists`;
  if (policy.ownPorts().includes(port)) return `port ${port} is one of the service's own: a webhook never calls the service itself`;
  return null;
}

/** Creates the webhook sender of one node. */
export function createWebhooks(policy: WebhookPolicy, limits: WebhookLimits = DEFAULT_WEBHOOK_LIMITS, now: () => number = Date.now): Webhooks {
  const inFlight = new Map<string, number>();
  const sent = new Map<string, number[]>();
  let total = 0;
  const admit = (caller: string): string | null => {
    if (total >= limits.perNodeInFlight) return `${limits.perNodeInFlight} webhooks are in flight on this node, its bound`;
    if ((inFlight.get(caller) ?? 0) >= limits.perCallerInFlight) return `${limits.perCallerInFlight} webhooks of this caller are in flight, its share`;
    const since = now() - 60_000;
    const recent = (sent.get(caller) ?? []).filter((at) => at > since);
    if (recent.length >= limits.perCallerPerMinute) return `this caller sent ${limits.perCallerPerMinute} webhooks in the last minute, its bound`;
    recent.push(now());
    sent.set(caller, recent);
    if (sent.size > 10_000) for (const [key, times] of sent) if (times.every((at) => at <= since)) sent.delete(key);
    return null;
  };
  const post = async (caller: string, url: string, body: string, headers: Record<string, string>) => {
    const problem = callbackProblem(url, policy) ?? admit(caller);
    if (problem) throw new Error(`inboxkit: did not call ${url}: ${problem}`);
    total += 1;
    inFlight.set(caller, (inFlight.get(caller) ?? 0) + 1);
    try {
      const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(limits.timeoutMs) });
      return { status: response.status, body: (await response.text()).slice(0, 64 * 1024) };
    } finally {
      total -= 1;
      const left = (inFlight.get(caller) ?? 1) - 1;
      if (left <= 0) inFlight.delete(caller);
      else inFlight.set(caller, left);
    }
  };
  return {
    postForm: (caller, url, params, headers) => post(caller, url, new URLSearchParams(params).toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers }),
    postJson: (caller, url, json) => post(caller, url, JSON.stringify(json), { 'content-type': 'application/json' }),
    postBody: (caller, url, body, headers) => post(caller, url, body, headers),
    problemOf: (url) => callbackProblem(url, policy),
    inFlight: () => total,
  };
}
