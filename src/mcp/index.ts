/**
 * The inboxkit MCP server: disposable inboxes for AI agents, over stdio
 * (`inboxkit mcp`) or Streamable HTTP (mounted by `inboxkit serve` at `/mcp`).
 * It is a client of the API like any other: it uses the client's public API
 * and never the server. The MCP SDK is an optional peer dependency, loaded on
 * first use.
 *
 * @packageDocumentation
 */
export { runMcpStdio } from './stdio.ts';
export type { McpStdioOptions } from './stdio.ts';
export { createMcpHttpHandler } from './http.ts';
export type { McpHttpHandler, McpHttpOptions, McpServiceInfo } from './http.ts';
export { createMcpServer, TOOLS } from './server.ts';
export type { McpServerOptions } from './server.ts';
export { McpSession, DEFAULT_SESSION_LIMITS } from './session.ts';
export type { SessionLimits } from './session.ts';
export { loadMcpSdk, SDK_RANGE } from './sdk.ts';
export type { McpSdk } from './sdk.ts';
export { PROMPTS } from './prompts.ts';
export type { PromptDefinition } from './prompts.ts';
export type { ToolDefinition, ToolHints } from './tool.ts';
