/**
 * What the MCP specs share: an SDK client connected over stdio (spawning
 * `inboxkit mcp` from the sources) or over Streamable HTTP (`/mcp` of a
 * spawned `inboxkit serve`), mail sent over real SMTP, and a tool call's text.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import nodemailer from 'nodemailer';
import { CLI } from '../../support/serve.ts';
import type { Ready } from '../../support/serve.ts';

/** How a spec reaches the MCP server. */
export type McpTransportKind = 'stdio' | 'http';

/** A connected SDK client; `close()` ends its transport (and the spawned `inboxkit mcp`). */
export interface Connected {
  client: Client;
  /** What `inboxkit mcp` wrote on stderr (stdio only). */
  stderr: () => string;
  close(): Promise<void>;
}

/** Connects the SDK's own client to inboxkit's MCP server with `apiKey` (none: a guest). */
export async function connect(kind: McpTransportKind, service: Pick<Ready, 'url'>, apiKey?: string): Promise<Connected> {
  const client = new Client({ name: 'inboxkit-test', version: '1.0.0' });
  let err = '';
  if (kind === 'stdio') {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--base-url', service.url],
      env: { PATH: process.env.PATH ?? '', ...(apiKey ? { INBOXKIT_API_KEY: apiKey } : {}) },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    await client.connect(transport);
  } else {
    const transport = new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
      requestInit: { headers: apiKey ? { Authorization: `Bearer ${apiKey}` } : {} },
    });
    await client.connect(transport);
  }
  return { client, stderr: () => err, close: () => client.close() };
}

/** Calls a tool and returns its text and whether it is a tool error. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}, options: { signal?: AbortSignal } = {}): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args }, undefined, { ...options, timeout: 120_000 });
  const content = result.content as Array<{ type: string; text?: string }>;
  return { text: content.map((c) => c.text ?? '').join('\n'), isError: result.isError === true };
}

/** The inbox id in create_inbox's answer. */
export function inboxIdOf(text: string): { id: string; address: string } {
  const id = /^Inbox (\S+)/m.exec(text)?.[1];
  const address = /^Address: (\S+)/m.exec(text)?.[1];
  if (!id || !address) throw new Error(`create_inbox answered without an id and address:\n${text}`);
  return { id, address };
}

/** The message id in wait_for_message's answer. */
export function messageIdOf(text: string): string {
  const id = /^Message (\S+)/m.exec(text)?.[1];
  if (!id) throw new Error(`no message id in:\n${text}`);
  return id;
}

/** Sends a confirmation email with a code and two links to `to`, over SMTP. */
export async function sendConfirmation(service: Pick<Ready, 'smtpHost' | 'smtpPort'>, to: string, code = '482913', subject = 'Confirm your email'): Promise<void> {
  const transport = nodemailer.createTransport({ host: service.smtpHost, port: service.smtpPort, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({
      from: 'Acme <no-reply@acme.example>',
      to,
      subject,
      text: `Welcome! Your verification code is ${code}.\nConfirm: https://app.acme.example/confirm?token=t0k3n\nUnsubscribe: https://app.acme.example/unsubscribe`,
      html: `<p>Welcome!</p><p>Your verification code is <b style="font-size:24px">${code}</b>.</p><p><a href="https://app.acme.example/confirm?token=t0k3n">Confirm email</a></p><p>Order #77812 · <a href="https://app.acme.example/unsubscribe">Unsubscribe</a></p>`,
    });
  } finally {
    transport.close();
  }
}
