/**
 * What a wait matches: {@link MessageCriteria} (subject, from, to, text, html,
 * `where`), or a {@link MessagePredicate} alone. How they are checked, and how
 * they read in step titles and error messages, is in
 * `src/client/internal/criteria.ts`.
 *
 * @packageDocumentation
 */
import type { ReceivedMessage } from './received.ts';

/**
 * A condition on the whole received message (bodies, headers, attachments,
 * `links()`, `otp()` …). It may be async; a predicate that throws fails the wait
 * with that error.
 */
export type MessagePredicate = (message: ReceivedMessage) => boolean | Promise<boolean>;

/**
 * What a message must look like. Every given field must match (AND).
 *
 * A string matches when the field contains it, ignoring case and treating any
 * run of whitespace as one space (`'confirm your'` matches `"Confirm\n  your email"`);
 * a RegExp is tested as given (its `g`/`y` flags are ignored).
 *
 * @example
 * ```ts
 * await inbox.waitForMessage({ subject: /confirm/i, from: 'no-reply@acme.example' });
 * await inbox.waitForMessage({ text: 'Your code is', where: (m) => m.attachments.length === 0 });
 * ```
 */
export interface MessageCriteria {
  /** The subject line. */
  subject?: string | RegExp;
  /** The sender: matches its address, its display name, or `Name <address>`. */
  from?: string | RegExp;
  /** A recipient (any of `To` and `Cc`): matches its address, display name, or `Name <address>`. */
  to?: string | RegExp;
  /** The plain-text body (derived from the HTML when the mail had none). */
  text?: string | RegExp;
  /** The sanitized HTML body, as markup (tags included). */
  html?: string | RegExp;
  /** Any other condition on the whole message. */
  where?: MessagePredicate;
}

/** What the waits accept: criteria, a predicate, or nothing (any message). */
export type MessageMatch = MessageCriteria | MessagePredicate;
