/**
 * Prompts for the common flows: each tells the model the sequence of tools,
 * the browser's (from `@playwright/mcp`) and inboxkit's.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import type { ZodType } from 'zod';

/** One prompt: its name, description, arguments and the text it expands to. */
export interface PromptDefinition {
  /** The prompt's name, in snake_case. */
  name: string;
  /** A short human title. */
  title: string;
  /** When to use it. */
  description: string;
  /** Its optional string arguments, each with a description. */
  args: Record<string, ZodType>;
  /** The instructions it expands to, with the arguments filled in. */
  text(args: Record<string, string | undefined>): string;
}

const url = (what: string) => z.string().max(500).optional().describe(what);
const at = (value: string | undefined, fallback: string) => (value ? `"${value}"` : fallback);

/** The prompts of the inboxkit MCP server. */
export const PROMPTS: PromptDefinition[] = [
  {
    name: 'verify_signup_email',
    title: 'Verify a sign-up email',
    description: 'Sign up in a web app with a fresh inbox and confirm the account through the link in the confirmation email.',
    args: { signup_url: url('The sign-up page, e.g. "http://localhost:3000/signup".') },
    text: (a) => [
      'Sign up with a new email address and confirm it:',
      '1. Call create_inbox; note its inbox_id and address.',
      `2. In the browser, open the sign-up page ${at(a.signup_url, '(ask the user for its URL if you do not know it)')}, fill in the address (and any password), and submit.`,
      '3. Call wait_for_message with the inbox_id (and subject "confirm" if several emails may come).',
      '4. Call get_link with the message_id and the visible text of the confirmation button (e.g. "Confirm email").',
      '5. Open that URL in the browser and check that the page says the email is confirmed.',
      '6. Call delete_inbox when done.',
    ].join('\n'),
  },
  {
    name: 'sign_in_with_emailed_code',
    title: 'Sign in with an emailed code',
    description: 'Request a one-time sign-in code by email and type it into the app.',
    args: { login_url: url('The sign-in page, e.g. "http://localhost:3000/login".'), email: z.string().max(320).optional().describe('The account\'s address, if it already exists; otherwise a new inbox is made.') },
    text: (a) => [
      'Sign in with a code sent by email:',
      `1. ${a.email ? `The account's address is ${a.email}; find its inbox with list_inboxes.` : 'Call create_inbox and use its address.'}`,
      `2. In the browser, open ${at(a.login_url, 'the sign-in page')}, enter the address and ask for a code.`,
      '3. Call wait_for_message with the inbox_id (text "code" helps when other emails arrive).',
      '4. Call get_code with the message_id; type the code exactly as returned into the code field and submit.',
      '5. Check that the page shows you signed in. A code is single-use: if it was refused, request a new one and wait again.',
    ].join('\n'),
  },
  {
    name: 'reset_password',
    title: 'Reset a password',
    description: 'Request a password reset email, follow its link and set a new password.',
    args: { forgot_url: url('The "forgot password" page, e.g. "http://localhost:3000/forgot".') },
    text: (a) => [
      'Reset a password through the emailed link:',
      '1. Use the inbox of the account (list_inboxes), or create_inbox and sign up first.',
      `2. In the browser, open ${at(a.forgot_url, 'the "forgot password" page')}, enter the address and submit.`,
      '3. Call wait_for_message with the inbox_id and subject "reset".',
      '4. Call get_link with the message_id and text "Reset password" (or the button\'s text).',
      '5. Open the link in the browser, set the new password, and sign in with it to check.',
    ].join('\n'),
  },
];
