/**
 * The inboxkit MCP server: the tools and prompts registered on an SDK
 * `McpServer` for one session. Every tool failure is a tool error the model
 * can act on; the wait is cancelled with the MCP request.
 *
 * @packageDocumentation
 */
import type { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { VERSION } from '../client/index.ts';
import { toolError } from './errors.ts';
import type { ToolResult } from './errors.ts';
import { bounded } from './format.ts';
import { PROMPTS } from './prompts.ts';
import type { McpSdk } from './sdk.ts';
import type { McpSession } from './session.ts';
import type { ToolDefinition } from './tool.ts';
import { createInbox, deleteInbox, listInboxes, listMessages, waitForMessage } from './tools-inbox.ts';
import { checkLinks } from './tools-links.ts';
import { checkCompatibilityTool, getCode, getLink, getMessage } from './tools-message.ts';
import { createPhone } from './tools-phone.ts';
import { getAppSettings } from './tools-email.ts';

/** Every tool, in the order a host lists them. A fixed list: a session cannot add tools. */
export const TOOLS: readonly ToolDefinition[] = [createInbox, createPhone, waitForMessage, getLink, getCode, getMessage, listMessages, listInboxes, deleteInbox, checkCompatibilityTool, checkLinks, getAppSettings];

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /**
   * Whether to offer check_links, which requests the origins the caller names
   * from this machine: right for the stdio server (beside the agent's browser),
   * wrong for one mounted in a shared service.
   * @defaultValue false
   */
  linkChecks?: boolean;
}

const INSTRUCTIONS = [
  'inboxkit gives you disposable email inboxes for testing web apps: create_inbox gives an address to type into a form,',
  'wait_for_message waits for the email the app sends and shows its code and links, get_link and get_code pick out the one you need.',
  'Use it beside a browser tool (such as Playwright MCP) for sign-up, sign-in-with-code and password-reset flows.',
].join(' ');

/** Runs one tool, turning a failure into a tool error. */
async function callTool(tool: ToolDefinition, session: McpSession, serviceUrl: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
  try {
    const text = await tool.run(session, args, signal);
    return { content: [{ type: 'text', text: bounded(text, session.limits.maxResultChars) }] };
  } catch (error) {
    return toolError(error, serviceUrl);
  }
}

/**
 * Builds the MCP server of one session: the inboxkit tools and prompts on the
 * session's client. Connect it to a transport (stdio, Streamable HTTP).
 *
 * @example
 * ```ts
 * const server = createMcpServer(await loadMcpSdk(), new McpSession(createClient({ baseUrl })), baseUrl, { linkChecks: true });
 * await server.connect(transport);
 * ```
 */
export function createMcpServer(sdk: McpSdk, session: McpSession, serviceUrl: string, options: McpServerOptions = {}): McpServer {
  const server = new sdk.McpServer({ name: 'inboxkit', title: 'inboxkit email inboxes', version: VERSION }, { instructions: INSTRUCTIONS });
  for (const tool of TOOLS) {
    if (tool === checkLinks && options.linkChecks !== true) continue;
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: tool.annotations },
      (args: Record<string, unknown>, extra: { signal: AbortSignal }) => callTool(tool, session, serviceUrl, args, extra.signal),
    );
  }
  for (const prompt of PROMPTS) {
    const args = prompt.args as Record<string, z.ZodOptional<z.ZodString>>;
    server.registerPrompt(prompt.name, { title: prompt.title, description: prompt.description, argsSchema: args }, (given: Record<string, string | undefined>) => ({
      description: prompt.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.text(given) } }],
    }));
  }
  return server;
}
