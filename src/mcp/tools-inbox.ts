/**
 * The inbox tools: create_inbox, list_inboxes, wait_for_message, list_messages
 * and delete_inbox. Descriptions are written for a model: when to use the
 * tool, what it returns, an example.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { bounded, inboxText, messageText, summaryLine } from './format.ts';
import { McpToolError } from './errors.ts';
import type { ToolDefinition } from './tool.ts';

const inboxId = z.string().min(1).max(200).describe('The inbox id returned by create_inbox, e.g. "ibx_8f2k…".');
const contains = (what: string, example: string) =>
  z.string().min(1).max(200).optional().describe(`Keep only messages whose ${what} contains this text (case-insensitive), e.g. ${example}.`);

/** create_inbox */
export const createInbox: ToolDefinition = {
  name: 'create_inbox',
  title: 'Create a disposable email inbox',
  description: [
    'Creates a new, empty email inbox with its own address, for one task (a sign-up, a password reset, a login code).',
    'Use it before typing an email address into a form; then call wait_for_message with the returned inbox id.',
    'Returns the inbox id and the email address. Example: create_inbox({ label: "signup test" }) → "Inbox ibx_123 / Address: k3x9@inboxkit.example.com".',
  ].join(' '),
  input: {
    label: z.string().min(1).max(100).optional().describe('A note to recognise the inbox later, e.g. "password reset".'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(session, args, signal) {
    const handle = await session.client.inboxes.create(args.label !== undefined ? { label: args.label as string } : {}, { signal });
    session.keepInbox(handle);
    return `${inboxText(handle)}\nUse this address in the app's form, then call wait_for_message with inbox_id "${handle.id}".`;
  },
};

/** list_inboxes */
export const listInboxes: ToolDefinition = {
  name: 'list_inboxes',
  title: 'List inboxes',
  description: 'Lists the inboxes this session can see, newest first (at most 20): id, address, message count. Use it when you lost an inbox id. Example: list_inboxes({}).',
  input: {},
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(session, _args, signal) {
    const page = await session.client.inboxes.list({ limit: 20, signal });
    if (page.items.length === 0) return 'No inboxes. Call create_inbox to make one.';
    return page.items.map((inbox) => `- ${inbox.id} ${inbox.address} (${inbox.messageCount} messages)`).join('\n');
  },
};

/** wait_for_message */
export const waitForMessage: ToolDefinition = {
  name: 'wait_for_message',
  title: 'Wait for an email',
  description: [
    'Waits until an email that matches arrives in the inbox (or takes one that already arrived and was not returned before), and returns it as compact text:',
    'sender, subject, the one-time code already extracted, every link with its visible text and URL, and the text body (trimmed).',
    'Call it right after the action that sends the email. Each call returns a different message: call it twice to get two emails.',
    'Criteria are optional "contains" texts, all of which must match.',
    'Example: wait_for_message({ inbox_id: "ibx_123", subject: "Confirm your email", timeout_seconds: 60 }).',
  ].join(' '),
  input: {
    inbox_id: inboxId,
    subject: contains('subject', '"Confirm your email"'),
    from: contains('sender (address or name)', '"no-reply@acme.example"'),
    text: contains('text body', '"your code is"'),
    timeout_seconds: z.number().int().min(1).optional().describe('How long to wait, from 1 to 300 seconds (default 60).'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(session, args, signal) {
    const timeout = (args.timeout_seconds as number | undefined) ?? 60;
    if (timeout > session.limits.maxWaitSeconds) {
      throw new McpToolError(`timeout_seconds is at most ${session.limits.maxWaitSeconds}; got ${timeout}. Wait ${session.limits.maxWaitSeconds} seconds or less, and call wait_for_message again if the email is slower.`);
    }
    const inbox = await session.inbox(args.inbox_id as string, signal);
    const criteria = Object.fromEntries((['subject', 'from', 'text'] as const).filter((k) => args[k] !== undefined).map((k) => [k, args[k] as string]));
    const message = await inbox.waitForMessage(criteria, { timeout: timeout * 1000, signal });
    session.keepMessage(message.id, message.inboxId);
    return messageText(message, Math.min(2000, session.limits.maxTextChars), await session.analyse(message));
  },
};

/** list_messages */
export const listMessages: ToolDefinition = {
  name: 'list_messages',
  title: 'List the emails of an inbox',
  description: [
    'Lists the emails already in an inbox, newest first, one line each: message id, arrival time, sender, subject. Does not wait.',
    'Use get_message, get_link or get_code with a message id from it. Example: list_messages({ inbox_id: "ibx_123", limit: 5 }).',
  ].join(' '),
  input: {
    inbox_id: inboxId,
    limit: z.number().int().min(1).max(50).optional().describe('How many messages, from 1 to 50 (default 20).'),
  },
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(session, args, signal) {
    const inbox = await session.inbox(args.inbox_id as string, signal);
    const page = await inbox.messages({ limit: (args.limit as number | undefined) ?? 20, signal });
    for (const item of page.items) session.keepMessage(item.id, item.inboxId);
    if (page.items.length === 0) return `No messages in ${inbox.address} yet. To wait for one, call wait_for_message.`;
    const more = page.nextCursor !== null ? '\n(older messages exist; raise limit up to 50 to see them)' : '';
    return bounded(`${page.items.length} message(s) in ${inbox.address}:\n${page.items.map(summaryLine).join('\n')}${more}`, session.limits.maxResultChars);
  },
};

/** delete_inbox */
export const deleteInbox: ToolDefinition = {
  name: 'delete_inbox',
  title: 'Delete an inbox',
  description: 'Deletes an inbox and all of its emails, when the task is done; its address then refuses mail. Example: delete_inbox({ inbox_id: "ibx_123" }).',
  input: { inbox_id: inboxId },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(session, args, signal) {
    const inbox = await session.inbox(args.inbox_id as string, signal);
    const deleted = await inbox.delete({ signal });
    session.forgetInbox(inbox.id);
    return `Deleted inbox ${deleted.id} (${inbox.address}) and its ${deleted.messagesDeleted} message(s).`;
  },
};
