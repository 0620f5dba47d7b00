/**
 * The MCP SDK, loaded on first use: `@modelcontextprotocol/sdk` is an optional
 * peer dependency (about 85 packages and 10 MB beyond inboxkit's own, express
 * among them), so an install that never runs an MCP server does not carry it. Missing, it is an error that names the
 * install command.
 *
 * @packageDocumentation
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { InboxkitError } from '../client/index.ts';

/** The SDK version range inboxkit is tested with. */
export const SDK_RANGE = '^1.32.2';

/** The parts of the SDK inboxkit uses. */
export interface McpSdk {
  McpServer: typeof McpServer;
  StdioServerTransport: typeof StdioServerTransport;
  WebStandardStreamableHTTPServerTransport: typeof WebStandardStreamableHTTPServerTransport;
}

/** Loads the SDK; throws an InboxkitError with the install command when it is not installed. */
export async function loadMcpSdk(): Promise<McpSdk> {
  try {
    const [mcp, stdio, http] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/mcp.js'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    ]);
    return { McpServer: mcp.McpServer, StdioServerTransport: stdio.StdioServerTransport, WebStandardStreamableHTTPServerTransport: http.WebStandardStreamableHTTPServerTransport };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new InboxkitError(
        `The inboxkit MCP server needs the MCP SDK, an optional peer dependency that is not installed. Install it next to inboxkit: npm install --save-dev @modelcontextprotocol/sdk@"${SDK_RANGE}"`,
        { cause: error },
      );
    }
    throw error;
  }
}
