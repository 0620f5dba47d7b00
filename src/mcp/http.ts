/**
 * The MCP server over Streamable HTTP, as a `Request → Response` handler the
 * service mounts at `/mcp` behind its own middleware (Host/Origin rules,
 * credentials, rate limit, body limit). Each MCP session is bound to the
 * credential that opened it and talks to the API with that credential, so it
 * sees exactly what the credential sees. Sessions are bounded in number and
 * forgotten when idle.
 *
 * @packageDocumentation
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createClient } from '../client/index.ts';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createMcpServer } from './server.ts';
import { loadMcpSdk } from './sdk.ts';
import type { McpSdk } from './sdk.ts';
import { EXTRA_HEADERS } from '../client/internal/transport.ts';
import { createAnalysisRunner } from '../checks/analysis-runner.ts';
import type { AnalysisRunner } from '../checks/analysis-runner.ts';
import { DEFAULT_SESSION_LIMITS, McpSession } from './session.ts';
import { admitSession, sessionKeys } from './session-shares.ts';
import type { SessionCaller } from './session-shares.ts';

/** Options of {@link createMcpHttpHandler}. */
export interface McpHttpOptions {
  /**
   * Open MCP sessions at once; one more is refused with 503 until one ends or idles out.
   * @defaultValue 100
   */
  maxSessions?: number;
  /**
   * Open MCP sessions one credential (API key, session token, inbox token) may hold.
   * @defaultValue 25
   */
  maxSessionsPerCredential?: number;
  /**
   * Open MCP sessions the guests (no credential, or an inbox token) of one client address may hold together.
   * @defaultValue 25
   */
  maxSessionsPerGuestAddress?: number;
  /**
   * A session unused this long (milliseconds) is closed; its client must initialize again.
   * @defaultValue 1800000 (30 minutes)
   */
  idleTimeoutMs?: number;
  /** The clock, in epoch milliseconds. @defaultValue `Date.now` */
  now?: () => number;
}

/** Where the mounted handler reaches the API, given by the service for each request. */
export interface McpServiceInfo {
  /** The API root the sessions' clients call, e.g. `http://127.0.0.1:8025/api/v1`. */
  apiUrl: string;
  /**
   * The client address of the request, as the service counts callers: a
   * guest's sessions are counted against it.
   * @defaultValue `'unknown'`
   */
  clientAddress?: string;
  /**
   * Headers the session's client sends on every API call, so that what it
   * does for its caller counts against that caller (the service seals them).
   * @defaultValue none
   */
  onBehalfHeaders?: Record<string, string>;
  /**
   * Who the request is charged to, as the service's every bound counts
   * callers (its `callerOf`); sessions are charged to it, so a session under
   * a capped API key counts with the key.
   * @defaultValue derived from the request's credential headers
   */
  caller?: SessionCaller;
  /**
   * The service's analysis runner, which the sessions' link and code
   * extraction runs in, so one bound holds for the node (the service closes it).
   * @defaultValue a runner of the endpoint's own, made on first use and closed with it
   */
  analysis?: AnalysisRunner;
}

/** The mounted MCP endpoint. */
export interface McpHttpHandler {
  /** Answers one HTTP request to the MCP endpoint. */
  handle(request: Request, service: McpServiceInfo): Promise<Response>;
  /** Closes every session. */
  close(): Promise<void>;
}

interface Entry {
  key: Buffer;
  /** The share keys the session is charged to (`session-shares.ts`). */
  keys: string[];
  transport: WebStandardStreamableHTTPServerTransport;
  server: McpServer;
  session: McpSession;
  lastUsed: number;
}

/** A hash of the request's credential headers: a session answers only to the credential that opened it. */
function credentialKey(request: Request): Buffer {
  return createHash('sha256').update(`${request.headers.get('authorization') ?? ''}\n${request.headers.get('x-inbox-token') ?? ''}`).digest();
}

/** The client options of the request's credential (the service's middleware already checked it). */
function credentialOf(request: Request): { apiKey?: string; sessionToken?: string; inboxToken?: string } {
  const bearer = /^Bearer[ ]+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
  if (bearer) return bearer.startsWith('tm_') ? { apiKey: bearer } : { sessionToken: bearer };
  const inboxToken = request.headers.get('x-inbox-token')?.trim();
  return inboxToken ? { inboxToken } : {};
}

/** Who opens a session, as the sessions table's shares count callers. */
function callerOf(request: Request, service: McpServiceInfo): SessionCaller {
  if (service.caller) return service.caller;
  const credential = credentialOf(request);
  const any = credential.apiKey ?? credential.sessionToken ?? credential.inboxToken;
  return {
    credential: any === undefined ? null : credentialKey(request).toString('hex'),
    address: service.clientAddress ?? 'unknown',
    guest: credential.apiKey === undefined && credential.sessionToken === undefined,
  };
}

function rpcError(status: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status, headers });
}

/** The ids of the JSON-RPC requests in a POST body (one message or a batch). */
function requestIds(body: unknown): Array<string | number> {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => {
    const message = m as { method?: unknown; id?: unknown } | null;
    return typeof message?.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number') ? [message.id] : [];
  });
}

/**
 * Answers a request of an open session. When the client goes away before the
 * answer (its HTTP request is aborted), the session's requests in that POST
 * are cancelled as a `notifications/cancelled` from the client would cancel
 * them: a `wait_for_message` whose client dropped ends its wait, and with it
 * the event stream it holds, at once rather than at its timeout.
 */
async function handleInSession(transport: WebStandardStreamableHTTPServerTransport, request: Request): Promise<Response> {
  if (request.method !== 'POST') return transport.handleRequest(request);
  let parsedBody: unknown;
  try {
    parsedBody = await request.json();
  } catch {
    return rpcError(400, 'The request body is not JSON: send a JSON-RPC message with Content-Type: application/json.');
  }
  const ids = requestIds(parsedBody);
  if (ids.length > 0) {
    const cancel = () => {
      for (const requestId of ids) {
        transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'the MCP client went away' } });
      }
    };
    if (request.signal.aborted) cancel();
    else request.signal.addEventListener('abort', cancel, { once: true });
  }
  return transport.handleRequest(request, { parsedBody });
}

/**
 * Makes the Streamable HTTP endpoint. The SDK is loaded on the first request;
 * when it is not installed, that request gets a 501 naming the install command.
 *
 * @example
 * ```ts
 * const mcp = createMcpHttpHandler();
 * const server = await startServer({ mounts: [{ path: '/mcp', handler: (req, info) => mcp.handle(req, info) }] });
 * ```
 */
export function createMcpHttpHandler(options: McpHttpOptions = {}): McpHttpHandler {
  const limits = { total: options.maxSessions ?? 100, perCredential: options.maxSessionsPerCredential ?? 25, perGuestAddress: options.maxSessionsPerGuestAddress ?? 25 };
  const idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60 * 1000;
  const now = options.now ?? Date.now;
  const sessions = new Map<string, Entry>();
  // The service's runner when it hands one (the node's bound); else one of the endpoint's own, for every session.
  let own: AnalysisRunner | undefined;
  const runnerFor = (service: McpServiceInfo) => service.analysis ?? (own ??= createAnalysisRunner());
  let sdk: Promise<McpSdk> | undefined;
  // Sessions being initialized, by share key: counted until they are sessions or refused, so a burst cannot pass a bound.
  const opening = { total: 0, byKey: new Map<string, number>() };
  const countOpening = (keys: readonly string[], by: number) => {
    opening.total += by;
    for (const k of keys) {
      const n = (opening.byKey.get(k) ?? 0) + by;
      if (n > 0) opening.byKey.set(k, n);
      else opening.byKey.delete(k);
    }
  };

  const drop = async (id: string) => {
    const entry = sessions.get(id);
    if (!entry) return;
    sessions.delete(id);
    await entry.server.close().catch(() => {});
    await entry.session.close().catch(() => {});
  };
  const sweep = async () => {
    const limit = now() - idleTimeoutMs;
    await Promise.all([...sessions].filter(([, e]) => e.lastUsed < limit).map(([id]) => drop(id)));
  };

  const open = async (request: Request, service: McpServiceInfo, loaded: McpSdk): Promise<Response> => {
    if (request.method !== 'POST') return rpcError(400, 'No MCP session: start one with an initialize request (POST, without an Mcp-Session-Id header).');
    const caller = callerOf(request, service);
    const admitted = admitSession(limits, caller, sessions, opening);
    if (admitted !== 'open' && !('evict' in admitted)) return rpcError(admitted.status, admitted.message, { 'Retry-After': String(admitted.retryAfterSeconds) });
    if (admitted !== 'open') await drop(admitted.evict);
    const clientOptions = { baseUrl: service.apiUrl, ...credentialOf(request), [EXTRA_HEADERS]: service.onBehalfHeaders ?? {} };
    const session = new McpSession(createClient(clientOptions), DEFAULT_SESSION_LIMITS, runnerFor(service));
    const server = createMcpServer(loaded, session, service.apiUrl);
    const keys = sessionKeys(caller);
    const entry: Omit<Entry, 'transport'> & { transport?: WebStandardStreamableHTTPServerTransport } = { key: credentialKey(request), keys, server, session, lastUsed: now() };
    const transport = new loaded.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, entry as Entry),
      onsessionclosed: (id) => drop(id),
    });
    entry.transport = transport;
    // Counted until it is a session or refused, so that a burst of initializations cannot pass the bound.
    countOpening(keys, 1);
    let response: Response;
    try {
      await server.connect(transport);
      response = await transport.handleRequest(request);
    } catch (error) {
      await server.close().catch(() => {});
      await session.close();
      throw error;
    } finally {
      countOpening(keys, -1);
    }
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) {
      await server.close().catch(() => {});
      await session.close();
    }
    return response;
  };

  return {
    async handle(request, service) {
      let loaded: McpSdk;
      try {
        loaded = await (sdk ??= loadMcpSdk());
      } catch (error) {
        // Not cached: installing the SDK and retrying works without a restart.
        sdk = undefined;
        return rpcError(501, (error as Error).message);
      }
      try {
        await sweep();
        const id = request.headers.get('mcp-session-id');
        if (id === null) return await open(request, service, loaded);
        const entry = sessions.get(id);
        // Another credential's session answers as one that does not exist.
        if (!entry || !timingSafeEqual(entry.key, credentialKey(request))) {
          return rpcError(404, 'No such MCP session (it was closed, idled out, or belongs to another credential): initialize a new one.');
        }
        entry.lastUsed = now();
        return await handleInSession(entry.transport, request);
      } catch (error) {
        return rpcError(500, `The MCP endpoint failed on this request (${(error as Error).message}); retry, or initialize a new session.`);
      }
    },
    async close() {
      await Promise.all([...sessions.keys()].map(drop));
      await own?.close();
    },
  };
}
