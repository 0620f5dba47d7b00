/**
 * The shape of one tool: its name, the text a model reads, its input schema,
 * and what it does with a session. The server module turns each into an SDK
 * tool and every failure into a tool error.
 *
 * @packageDocumentation
 */
import type { ZodType } from 'zod';
import type { McpSession } from './session.ts';

/** Hints for hosts about what a tool does (the MCP tool annotations). */
export interface ToolHints {
  /** The tool changes nothing. */
  readOnlyHint?: boolean;
  /** The tool deletes or overwrites something. */
  destructiveHint?: boolean;
  /** Calling it twice with the same input does no more than once. */
  idempotentHint?: boolean;
  /** The tool reaches outside the inbox service (e.g. requests an app's links). */
  openWorldHint?: boolean;
}

/** One tool of the inboxkit MCP server. */
export interface ToolDefinition {
  /** The tool's name, in snake_case. */
  name: string;
  /** A short human title. */
  title: string;
  /** What a model reads: when to use it, what it returns, an example. */
  description: string;
  /** The input's fields; each a zod schema with a description. */
  input: Record<string, ZodType>;
  /** Hints for the host. */
  annotations: ToolHints;
  /** Runs the tool; resolves with the result text, throws on failure (made a tool error by the caller). */
  run(session: McpSession, args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}
