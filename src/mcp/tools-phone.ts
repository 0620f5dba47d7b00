/**
 * The phone tool: create_phone. A phone is an inbox with a phone number, so
 * wait_for_message, get_code and list_messages read its SMS as they read email.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { inboxText } from './format.ts';
import type { ToolDefinition } from './tool.ts';

/** create_phone */
export const createPhone: ToolDefinition = {
  name: 'create_phone',
  title: 'Create a phone number that receives SMS',
  description: [
    'Creates a phone number (from a range kept for fiction, valid for apps\' checks) whose text messages the service receives, for one task (an SMS code at sign-up or sign-in).',
    'Type the number into the app\'s phone field; then call wait_for_message with the returned inbox id: each SMS is a message, with its code extracted.',
    'Example: create_phone({ country: "US" }) → "Phone: +12025550123 / Inbox ibx_123".',
  ].join(' '),
  input: {
    country: z.enum(['US', 'CA', 'AU', 'FR']).optional().describe('Country of the number: US (default), CA, AU or FR.'),
    label: z.string().min(1).max(100).optional().describe('A note to recognise the phone later, e.g. "2FA test".'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(session, args, signal) {
    const params = {
      ...(args.country !== undefined ? { country: args.country as 'US' | 'CA' | 'AU' | 'FR' } : {}),
      ...(args.label !== undefined ? { label: args.label as string } : {}),
    };
    const handle = await session.client.phones.create(params, { signal });
    session.keepInbox(handle);
    return `Phone: ${handle.phoneNumber ?? ''}\n${inboxText(handle)}\nType ${handle.phoneNumber ?? ''} into the app's phone field, then call wait_for_message with inbox_id "${handle.id}" to read the SMS.`;
  },
};
