/**
 * The MCP server over stdio, for agent hosts that spawn it: one session, with
 * the credential it was started with, talking to a running service.
 *
 * @packageDocumentation
 */
import type { Readable, Writable } from 'node:stream';
import { createClient } from '../client/index.ts';
import { createMcpServer } from './server.ts';
import { loadMcpSdk } from './sdk.ts';
import { McpSession } from './session.ts';

/** Options of {@link runMcpStdio}. */
export interface McpStdioOptions {
  /** The service's origin or API root, e.g. `http://127.0.0.1:8025`. */
  baseUrl: string;
  /** An API key (`tm_…`): the session sees that user's inboxes. */
  apiKey?: string | undefined;
  /** A session token, instead of an API key. */
  sessionToken?: string | undefined;
  /** Where JSON-RPC messages come from. */
  stdin: Readable;
  /** Where JSON-RPC messages go; nothing else may write to it. */
  stdout: Writable;
  /** Ends the server (e.g. on SIGTERM). */
  signal?: AbortSignal;
}

/**
 * Serves MCP over stdio until the input ends or `signal` aborts. Without a
 * credential the session is a guest: it sees only the inboxes it creates.
 *
 * @example
 * ```ts
 * await runMcpStdio({ baseUrl: 'http://127.0.0.1:8025', apiKey, stdin: process.stdin, stdout: process.stdout });
 * ```
 */
export async function runMcpStdio(options: McpStdioOptions): Promise<void> {
  const sdk = await loadMcpSdk();
  const client = createClient({
    baseUrl: options.baseUrl,
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    ...(options.sessionToken ? { sessionToken: options.sessionToken } : {}),
  });
  const session = new McpSession(client);
  const server = createMcpServer(sdk, session, client.apiUrl, { linkChecks: true });
  const transport = new sdk.StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    options.stdin.once('end', () => resolve());
    options.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  try {
    await closed;
  } finally {
    await server.close().catch(() => {});
    await session.close();
  }
}
