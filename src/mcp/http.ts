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
import { DEFAULT_SESSION_LIMITS, McpSession } from './session.ts';

/** Options of {@link createMcpHttpHandler}. */
export interface McpHttpOptions {
  /**
   * Open MCP sessions at once; one more is refused with 503 until one ends or idles out.
   * @defaultValue 100
   */
  maxSessions?: number;
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

function rpcError(status: number, message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status });
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
  const maxSessions = options.maxSessions ?? 100;
  const idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60 * 1000;
  const now = options.now ?? Date.now;
  const sessions = new Map<string, Entry>();
  let sdk: Promise<McpSdk> | undefined;
  let opening = 0;

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
    if (sessions.size + opening >= maxSessions) return rpcError(503, `This service has ${maxSessions} open MCP sessions, its limit; close one (DELETE with its Mcp-Session-Id) or retry later.`);
    const session = new McpSession(createClient({ baseUrl: service.apiUrl, ...credentialOf(request) }), DEFAULT_SESSION_LIMITS);
    const server = createMcpServer(loaded, session, service.apiUrl);
    const entry: Omit<Entry, 'transport'> & { transport?: WebStandardStreamableHTTPServerTransport } = { key: credentialKey(request), server, session, lastUsed: now() };
    const transport = new loaded.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, entry as Entry),
      onsessionclosed: (id) => drop(id),
    });
    entry.transport = transport;
    // Counted until it is a session or refused, so that a burst of initializations cannot pass the bound.
    opening += 1;
    let response: Response;
    try {
      await server.connect(transport);
      response = await transport.handleRequest(request);
    } catch (error) {
      await server.close().catch(() => {});
      await session.close();
      throw error;
    } finally {
      opening -= 1;
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
        return await entry.transport.handleRequest(request);
      } catch (error) {
        return rpcError(500, `The MCP endpoint failed on this request (${(error as Error).message}); retry, or initialize a new session.`);
      }
    },
    async close() {
      await Promise.all([...sessions.keys()].map(drop));
    },
  };
}
