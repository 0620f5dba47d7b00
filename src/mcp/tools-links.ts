/**
 * check_links: the link check of `toHaveWorkingLinks()` as a tool. It makes
 * requests from the MCP server's machine, so only the stdio server (which runs
 * where the agent's browser does) offers it: mounted in a shared service it
 * would let a caller make the service request any origin it names.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { checkMessageLinks, describeCheckedLink } from '../checks/link-check.ts';
import type { LinkRequester, LinkResponse } from '../client/index.ts';
import { McpToolError } from './errors.ts';
import { bounded } from './format.ts';
import type { ToolDefinition } from './tool.ts';

/** Links and images checked per call; more are not requested. */
const MAX_CHECKED = 40;

/** A {@link LinkRequester} over `fetch`, one hop at a time, cancelled with the tool call. */
function fetchRequester(signal: AbortSignal): LinkRequester {
  return {
    async fetch(url, options): Promise<LinkResponse> {
      const response = await fetch(url, { method: options.method, redirect: 'manual', signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeout)]) });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      return { status: () => response.status, headers: () => headers, dispose: async () => void (await response.body?.cancel()) };
    },
  };
}

function origin(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  } catch {}
  throw new McpToolError(`allow takes origins such as "http://localhost:3000"; got ${JSON.stringify(value)}.`);
}

/** check_links */
export const checkLinks: ToolDefinition = {
  name: 'check_links',
  title: 'Check that the links of an email work',
  description: [
    'Requests every link and image of an email that points at the allowed origins (the app under test) and reports which work, which are broken (4xx/5xx, errors, redirect loops) and which were skipped.',
    'Links elsewhere are never requested. A link is requested with GET, as a click does, so one-time links (confirm, magic sign-in) are spent: list them in exclude, or check after the flow used them.',
    'Example: check_links({ message_id: "msg_123", allow: ["http://localhost:3000"], exclude: ["/confirm"] }).',
  ].join(' '),
  input: {
    message_id: z.string().min(1).max(200).describe('The message id from wait_for_message or list_messages.'),
    allow: z.array(z.string().min(1).max(200)).min(1).max(5).describe('Origins that may be requested, e.g. ["http://localhost:3000"].'),
    exclude: z.array(z.string().min(1).max(200)).max(20).optional().describe('Links not to request: any URL containing one of these, e.g. ["/confirm", "/unsubscribe"].'),
    images: z.boolean().optional().describe('Also check images (default true).'),
  },
  annotations: { readOnlyHint: false, openWorldHint: true },
  async run(session, args, signal) {
    const message = await session.message(args.message_id as string, signal);
    const allow = (args.allow as string[]).map(origin);
    const wantImages = (args.images as boolean | undefined) ?? true;
    // Links and images are read from the HTML in a bounded worker, never on the server's event loop.
    const analysis = await session.analyse(message, { images: wantImages });
    const found = analysis.links;
    const imageList = analysis.images ?? [];
    const imageCount = imageList.length;
    // Over the bound, images are left out rather than requested.
    const images = wantImages && imageCount <= MAX_CHECKED;
    const report = await checkMessageLinks(
      { links: () => found.slice(0, MAX_CHECKED), html: message.html, images: () => imageList },
      { request: fetchRequester(signal), baseURL: undefined },
      { allow, exclude: (args.exclude as string[] | undefined) ?? [], images, timeout: 10_000, concurrency: 4, maxRedirects: 5 },
    );
    const lines = [
      `${report.ok.length} working, ${report.broken.length} broken, ${report.skipped.length} skipped (requests allowed to ${allow.join(', ')}):`,
      ...(images || imageCount === 0 || args.images === false ? [] : [`(${imageCount} images, over the bound of ${MAX_CHECKED}: not checked)`]),
      ...report.links.slice(0, MAX_CHECKED).map(describeCheckedLink),
    ];
    return bounded(lines.join('\n'), session.limits.maxResultChars);
  },
};
