/**
 * Mounts: extra HTTP endpoints a host program adds to the service's app (the
 * CLI mounts the MCP server at `/mcp`). A mount sits behind the app's whole
 * middleware, so the Host/Origin rules, the credential check, the rate limit
 * and the body limit apply to it as to the API; the server knows nothing of
 * what it serves.
 *
 * @packageDocumentation
 */
import type { AnalysisRunner } from '../../checks/analysis-runner.ts';
import type { Context, Hono } from 'hono';
import { clientAddressOf } from './client-address.ts';
import type { OnBehalf } from './on-behalf.ts';
import type { RequestIdEnv } from './request-id.ts';

/** What the service tells a mount about itself, for each request. */
export interface MountInfo {
  /** The API root of this service, reachable from this process (loopback for a wildcard bind), e.g. `http://127.0.0.1:8025/api/v1`. */
  apiUrl: string;
  /** The request id of this request (also in its `X-Request-Id` header). */
  requestId: string;
  /** The client address of the request, as the service's bounds count it. */
  clientAddress: string;
  /**
   * Headers to send on the API calls the mount makes for this request, so that
   * they count against its caller's address (the streams of its waits, the
   * guest inboxes it creates, its requests) rather than the service's own
   * loopback. Sealed by this service (`on-behalf.ts`): worthless elsewhere.
   */
  onBehalfHeaders: Record<string, string>;
  /**
   * Who the request is charged to, as every bound of the service counts
   * callers (its `callerOf`): the credential (a hash), the client address, and
   * whether it is a guest. A mount with bounds of its own counts with this.
   */
  caller: MountCaller;
  /**
   * The node's one analysis runner (bounded workers, time and heap per job):
   * a mount that analyses mail runs its jobs here, so the node's bound holds
   * across the API's checks and the mount, and the drain closes it.
   */
  analysis: AnalysisRunner;
}

/** A request's caller, as the service's bounds count it. */
export interface MountCaller {
  credential: string | null;
  address: string;
  guest: boolean;
}

/** One extra endpoint. */
export interface AppMount {
  /** Its path, e.g. `/mcp`: one segment or more, outside `/api/v1`; every method on it goes to the handler. */
  path: string;
  /** Answers a request that passed the app's middleware (its credential, if any, is valid). */
  handler: (request: Request, info: MountInfo) => Response | Promise<Response>;
}

/** What a mount is told about one request: the API root, the request id, its caller, and its caller's address with the headers that charge calls to it. */
export function mountInfoOf(c: Context, apiUrl: string, options: Pick<ServeMountsOptions, 'onBehalf' | 'callerOf' | 'analysis'>): MountInfo {
  const clientAddress = clientAddressOf(c);
  return { apiUrl, requestId: c.get('requestId') as string, clientAddress, onBehalfHeaders: options.onBehalf.headersFor(clientAddress), caller: options.callerOf(c, clientAddress), analysis: options.analysis };
}

/** Throws when a mount's path is malformed or would shadow the API, the viewer or another mount. */
export function checkMounts(mounts: readonly AppMount[], apiPrefix: string): void {
  const seen = new Set<string>();
  for (const mount of mounts) {
    if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(mount.path)) {
      throw new Error(`A mount's path must be like "/mcp" (segments of letters, digits, ".", "_", "~", "-"); got ${JSON.stringify(mount.path)}.`);
    }
    if (mount.path === apiPrefix || mount.path.startsWith(`${apiPrefix}/`) || mount.path === '/healthz' || mount.path === '/viewer' || mount.path.startsWith('/viewer/')) {
      throw new Error(`The mount path ${mount.path} is the service's own; choose another, such as /mcp.`);
    }
    if (seen.has(mount.path)) throw new Error(`Two mounts have the path ${mount.path}.`);
    seen.add(mount.path);
  }
}

/** Where the mounts are told the API is, and how their calls are charged to their callers. */
export interface ServeMountsOptions {
  /** The API prefix (`/api/v1`), which no mount may shadow. */
  apiPrefix: string;
  /** Seals the headers that charge a mount's calls to its caller's address. */
  onBehalf: OnBehalf;
  /**
   * The API root the mounts are told to call (`MountInfo.apiUrl`), once known.
   * @defaultValue `http://localhost` + the API prefix (in-process use)
   */
  selfApiUrl?: (() => string) | undefined;
  /** Who a request is charged to (the service's `callerOf`, injected: this layer knows no principals). */
  callerOf: (c: Context, clientAddress: string) => MountCaller;
  /** The node's analysis runner, handed to the mounts. */
  analysis: AnalysisRunner;
}

/** Checks the mounts ({@link checkMounts}) and serves each on `app`, every method of its path. */
export function serveMounts<E extends RequestIdEnv>(app: Hono<E>, mounts: readonly AppMount[], options: ServeMountsOptions): void {
  checkMounts(mounts, options.apiPrefix);
  for (const mount of mounts) {
    app.all(mount.path, (c) => mount.handler(c.req.raw, mountInfoOf(c, options.selfApiUrl?.() ?? `http://localhost${options.apiPrefix}`, options)));
  }
}
