/**
 * The operator's endpoints, answered before the app (no credential, no rate
 * limit: a balancer's check and a Prometheus scrape reach them as they
 * are), to the end of a drain: `GET /livez` (the process answers),
 * `GET /readyz` (the node takes new work: 503 once it drains) and
 * `GET /metrics` (when on; under the API's Host rule: on a node bound to
 * loopback, only a loopback or `--allowed-host` name, so a page that
 * rebinds its name to the node cannot read it).
 *
 * @packageDocumentation
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FrontHandler } from './http-server.ts';
import type { ServiceMetrics } from './metrics.ts';
import { isAllowedHost } from './auth/host-check.ts';
import type { ResolvedConfig } from './context/config.ts';
import { isLoopbackHost } from '../wire/defaults.ts';

/** What the probes read. */
export interface ProbeState {
  /** Whether the node is draining (readiness then fails). */
  draining(): boolean;
  /** The metrics; `/metrics` is a 404 when they are off. */
  metrics: ServiceMetrics;
  /** Whether a `Host` may read `/metrics`; null: any (a node not bound to loopback, as the API). */
  hostRule?: ((host: string) => boolean) | null;
}

/** The API's Host rule for `/metrics`: on a node bound to loopback, a loopback name or an `--allowed-host`. */
export function hostRuleOf(config: ResolvedConfig): ((host: string) => boolean) | null {
  if (!isLoopbackHost(config.http.host)) return null;
  return (host) => isAllowedHost(host, config.bounds.allowedHosts);
}

function json(response: ServerResponse, status: number, body: unknown, head: boolean): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), 'Cache-Control': 'no-store' });
  response.end(head ? undefined : text);
}

/** The front handler of the probes; anything else is left to the app. */
export function createProbes(state: ProbeState): FrontHandler {
  return (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/livez' && path !== '/readyz' && path !== '/metrics') return false;
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    const head = request.method === 'HEAD';
    if (path === '/livez') {
      json(response, 200, { data: { status: 'ok' } }, head);
      return true;
    }
    if (path === '/readyz') {
      if (state.draining()) {
        json(response, 503, { error: { code: 'service_unavailable', message: 'This node is draining (shutting down): send new work to another node.' } }, head);
      } else {
        json(response, 200, { data: { status: 'ready' } }, head);
      }
      return true;
    }
    const host = request.headers.host ?? '';
    if (state.hostRule && !state.hostRule(host)) {
      json(response, 403, { error: { code: 'host_not_allowed', message: `Host "${host.slice(0, 100)}" is not allowed to read /metrics: this node is bound to loopback and answers only localhost, 127.0.0.1 or [::1] (or a name given with --allowed-host).` } }, head);
      return true;
    }
    void state.metrics.render().then(
      (out) => {
        if (out === null) {
          json(response, 404, { error: { code: 'not_found', message: 'Metrics are off on this node; start it with --metrics (and install prom-client).' } }, head);
          return;
        }
        response.writeHead(200, { 'Content-Type': out.contentType, 'Content-Length': String(Buffer.byteLength(out.body)), 'Cache-Control': 'no-store' });
        response.end(head ? undefined : out.body);
      },
      () => json(response, 500, { error: { code: 'internal_error', message: 'The metrics could not be rendered.' } }, head),
    );
    return true;
  };
}
