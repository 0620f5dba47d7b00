/**
 * Tool errors: every failure of a tool becomes a result with `isError: true`
 * and one message that says what went wrong and what to call next, never a
 * crash of the server and never a secret.
 *
 * @packageDocumentation
 */
import {
  AbortError,
  ApiError,
  AuthenticationError,
  ConnectionError,
  ExtractionError,
  InboxkitError,
  RateLimitError,
  TimeoutError,
  WaitTimeoutError,
} from '../client/index.ts';

/** A failure whose message is already written for the model. */
export class McpToolError extends InboxkitError {
  override readonly name = 'McpToolError';
}

/** The shape of a tool result the SDK accepts. */
export interface ToolResult {
  [key: string]: unknown;
  /** The text the model reads. */
  content: Array<{ type: 'text'; text: string }>;
  /** Whether the call failed (the text then says why and what to do). */
  isError?: boolean;
}

/** Credentials that may appear in a message we did not write: cut out before a model reads it. */
const SECRET_SHAPES = /\b(?:tm[a-z]?_[A-Za-z0-9_-]{8,})\b|(?<=X-Inbox-Token:\s*)\S+|(?<=Bearer\s+)\S+/gi;

/** A message with anything shaped like a credential replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  return text.replace(SECRET_SHAPES, '[redacted]');
}

/** The first paragraph of an error message (the client's errors add call-site lines below it). */
function firstParagraph(message: string): string {
  return message.split(/\n\s*\n/)[0]!.trim();
}

/** What the model should read for a failure, and what it can do about it. */
export function describeToolFailure(error: unknown, serviceUrl: string): string {
  if (error instanceof McpToolError || error instanceof ExtractionError) return error.message;
  if (error instanceof WaitTimeoutError) {
    return `${firstParagraph(error.message).replace(/^waitForMessage/, 'wait_for_message')}\nNothing matched in time. Check that the app really sent the email to this inbox's address, loosen the criteria, or call wait_for_message again.`;
  }
  if (error instanceof AbortError) return 'The call was cancelled before it finished.';
  if (error instanceof ConnectionError || error instanceof TimeoutError) {
    return `The inboxkit service at ${serviceUrl} is not reachable (${firstParagraph(error.message)}). Ask the user to start it (npx inboxkit serve) or to fix the MCP server's --base-url; then call the tool again.`;
  }
  if (error instanceof AuthenticationError) {
    return `The inboxkit service refused this session's credential (${error.serverMessage}). Ask the user to check the API key given to the MCP server.`;
  }
  if (error instanceof RateLimitError) {
    return `The inboxkit service asks to slow down: wait ${error.retryAfter ?? 'a few'} seconds, then call the tool again.`;
  }
  if (error instanceof ApiError) return `The inboxkit service answered ${error.status} ${error.code}: ${error.serverMessage}`;
  if (error instanceof InboxkitError) return firstParagraph(error.message);
  return `The tool failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`;
}

/** A failure as a tool result (`isError: true`), secrets removed. */
export function toolError(error: unknown, serviceUrl: string): ToolResult {
  return { content: [{ type: 'text', text: redactSecrets(describeToolFailure(error, serviceUrl)) }], isError: true };
}
