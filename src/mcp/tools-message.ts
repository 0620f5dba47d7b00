/**
 * The message tools: get_message, get_link, get_code and check_compatibility.
 * They take a message id from wait_for_message or list_messages.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import type { ClientCompatibility } from '../client/index.ts';
import { McpToolError } from './errors.ts';
import { bounded, codeLine, linkLines, messageText } from './format.ts';
import type { ToolDefinition } from './tool.ts';

const messageId = z.string().min(1).max(200).describe('The message id from wait_for_message or list_messages, e.g. "msg_4k2…".');

/** get_message */
export const getMessage: ToolDefinition = {
  name: 'get_message',
  title: 'Read an email',
  description: [
    'Returns one email as compact text (the same form as wait_for_message): sender, subject, code, links, and the text body, trimmed to max_text_chars.',
    'HTML is never returned whole: links and codes are extracted from it. Example: get_message({ message_id: "msg_123", max_text_chars: 4000 }).',
  ].join(' '),
  input: {
    message_id: messageId,
    max_text_chars: z.number().int().min(100).optional().describe('Characters of the text body to return, from 100 to 6000 (default 2000).'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(session, args, signal) {
    const max = (args.max_text_chars as number | undefined) ?? 2000;
    if (max > session.limits.maxTextChars) {
      throw new McpToolError(`max_text_chars is at most ${session.limits.maxTextChars}; got ${max}. Use get_link or get_code to pick out what you need.`);
    }
    const message = await session.message(args.message_id as string, signal);
    return bounded(messageText(message, max, await session.analyse(message)), session.limits.maxResultChars);
  },
};

/** get_link */
export const getLink: ToolDefinition = {
  name: 'get_link',
  title: 'Pick a link out of an email',
  description: [
    'Returns the URL of the one link in an email whose visible text contains `text` (case-insensitive), with click-tracking redirects removed, ready to open in the browser.',
    'Without `text`, returns the only link, or lists them all when there are several. If several links match, it lists them so you can be more precise.',
    'Example: get_link({ message_id: "msg_123", text: "Confirm email" }) → "https://app.example/confirm?token=…".',
  ].join(' '),
  input: {
    message_id: messageId,
    text: z.string().min(1).max(200).optional().describe('Visible text of the link (button label), e.g. "Confirm email" or "Reset password".'),
    url_contains: z.string().min(1).max(200).optional().describe('Also require the URL to contain this, e.g. "/reset".'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(session, args, signal) {
    const message = await session.message(args.message_id as string, signal);
    const filter = { ...(args.text ? { text: args.text as string } : {}), ...(args.url_contains ? { href: args.url_contains as string } : {}) };
    const { links: all, matched } = await session.analyse(message, { links: filter });
    const links = matched ?? all;
    if (links.length === 1) return links[0]!.href;
    if (links.length === 0) {
      if (all.length === 0) throw new McpToolError(`The email "${message.subject}" has no links. Call get_code if it carries a code instead.`);
      const wanted = [args.text ? `text "${String(args.text)}"` : '', args.url_contains ? `URL containing "${String(args.url_contains)}"` : ''].filter(Boolean).join(' and ');
      throw new McpToolError(`No link with ${wanted} in "${message.subject}". Its links are:\n${linkLines(all).join('\n')}\nCall get_link again with the text of one of them.`);
    }
    throw new McpToolError(`${links.length} links match; say which with a more precise text or url_contains:\n${linkLines(links).join('\n')}`);
  },
};

/** get_code */
export const getCode: ToolDefinition = {
  name: 'get_code',
  title: 'Read the one-time code of an email',
  description: [
    'Returns the one-time code (OTP, verification or sign-in code) of an email, exactly as it should be typed (spaces and hyphens removed).',
    'Codes are ranked by evidence ("your code is", large font); order numbers, dates, phone numbers and hidden text are ruled out.',
    'Example: get_code({ message_id: "msg_123" }) → "Code: 482913". With `length: 6` only 6-character codes count.',
  ].join(' '),
  input: {
    message_id: messageId,
    length: z.number().int().min(3).max(12).optional().describe('The code length, when you know it (e.g. 6).'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(session, args, signal) {
    const message = await session.message(args.message_id as string, signal);
    const { otps } = await session.analyse(message, args.length !== undefined ? { otp: { length: args.length as number } } : {});
    const candidates = otps.candidates;
    if (candidates.length === 0) {
      const rejected = otps.rejected.slice(0, 5).map((r) => `"${r.raw}" (${r.reason})`).join(', ');
      throw new McpToolError(`No one-time code in "${message.subject}".${rejected ? ` Ruled out: ${rejected}.` : ''} If the email carries a link instead, call get_link.`);
    }
    return codeLine([...candidates]);
  },
};

function clientLine(client: ClientCompatibility): string {
  const missing = client.unsupported.slice(0, 5).map((f) => f.feature).join(', ');
  const more = client.unsupported.length > 5 ? ` and ${client.unsupported.length - 5} more` : '';
  const partial = client.partial.length === 0 ? '' : ` (partial: ${client.partial.slice(0, 5).map((f) => f.feature).join(', ')}${client.partial.length > 5 ? ` and ${client.partial.length - 5} more` : ''})`;
  return `- ${client.name}: ${client.unsupported.length === 0 ? 'ok' : `lacks ${missing}${more}`}${partial}`;
}

/** check_compatibility */
export const checkCompatibilityTool: ToolDefinition = {
  name: 'check_compatibility',
  title: 'Check an email against email clients',
  description: [
    'Checks the HTML and CSS an email uses against what email clients support (caniemail data) and lists, per client, the features it lacks.',
    'Use it to review an email\'s rendering risks. Example: check_compatibility({ message_id: "msg_123", clients: ["gmail", "outlook.windows"] }).',
  ].join(' '),
  input: {
    message_id: messageId,
    clients: z.array(z.string().min(1).max(60)).min(1).max(10).optional().describe('Clients such as "gmail", "outlook.windows", "apple-mail.ios", "*.android" (default: gmail, outlook, apple-mail).'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(session, args, signal) {
    const message = await session.message(args.message_id as string, signal);
    const clients = (args.clients as string[] | undefined) ?? ['gmail', 'outlook', 'apple-mail'];
    const report = await session.compatibility(message, clients, signal);
    const lines = [
      `${report.compatible ? 'Compatible' : 'Not compatible'} with ${report.clients.length} client(s) (checked the ${report.source} HTML, ${report.elements} elements):`,
      ...report.clients.slice(0, 30).map(clientLine),
    ];
    return bounded(lines.join('\n'), session.limits.maxResultChars);
  },
};
