/**
 * `inboxkit mcp`: the MCP server over stdio, for agent hosts that spawn it,
 * talking to a running service with the credential given by flag or
 * environment.
 *
 * @packageDocumentation
 */
import { DEFAULT_HTTP_PORT } from '../wire/defaults.ts';
import { UsageError, parse } from './usage.ts';
import type { CliIo } from './usage.ts';

/** The help of `inboxkit mcp`. */
export const MCP_HELP = `Usage: inboxkit mcp [options]

Serves the Model Context Protocol over stdio (for agent hosts that spawn it), with tools
to create inboxes, wait for email and read its links and codes. It talks to a running
inboxkit service (inboxkit serve) or a hosted Disposable Inbox API. inboxkit serve also
serves the same tools over Streamable HTTP at /mcp.

Needs the optional package @modelcontextprotocol/sdk:
  npm install --save-dev @modelcontextprotocol/sdk

Options:
  --base-url URL         The service's origin or API root; also read from INBOXKIT_BASE_URL
                         (default http://127.0.0.1:${DEFAULT_HTTP_PORT})
  --api-key KEY          API key (tm_…): the agent sees that user's inboxes; also read
                         from INBOXKIT_API_KEY (prefer the variable: flags show in ps)
  --session-token TOKEN  A session token instead; also read from INBOXKIT_SESSION_TOKEN
  -h, --help             Show this help

Without a credential the agent is a guest: it sees only the inboxes it creates.
Stdout carries the protocol; messages for people go to stderr.
`;

/** Runs `inboxkit mcp` until its input ends or a signal stops it. */
export async function mcp(args: string[], env: Record<string, string | undefined>, io: CliIo): Promise<number> {
  const { values } = parse(args, { 'base-url': { type: 'string' }, 'api-key': { type: 'string' }, 'session-token': { type: 'string' } }, MCP_HELP);
  if (values.help) {
    io.stdout(MCP_HELP);
    return 0;
  }
  const baseUrl = values['base-url'] ?? env.INBOXKIT_BASE_URL ?? `http://127.0.0.1:${DEFAULT_HTTP_PORT}`;
  if (!/^https?:\/\/[^\s/]+/.test(baseUrl)) throw new UsageError(`--base-url must be an http(s) URL such as http://127.0.0.1:${DEFAULT_HTTP_PORT}, got "${baseUrl}".`);
  const apiKey = values['api-key'] ?? env.INBOXKIT_API_KEY;
  const sessionToken = values['session-token'] ?? env.INBOXKIT_SESSION_TOKEN;
  if (apiKey && sessionToken) throw new UsageError('give an API key or a session token, not both (they are both sent as Authorization: Bearer).');
  if (apiKey !== undefined && !apiKey.startsWith('tm_')) throw new UsageError('the API key must start with "tm_"; for a session token use --session-token.');
  const { runMcpStdio } = await import('../mcp/index.ts');
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  io.stderr(`inboxkit mcp: serving MCP over stdio for ${baseUrl}${apiKey ? ' (API key)' : sessionToken ? ' (session token)' : ' (guest)'}\n`);
  try {
    await runMcpStdio({ baseUrl, apiKey, sessionToken, stdin: process.stdin, stdout: process.stdout, signal: stop.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return 0;
}
