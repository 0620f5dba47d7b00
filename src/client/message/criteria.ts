/**
 * What a wait matches: {@link MessageCriteria} (subject, from, to, text, html,
 * `where`), or a {@link MessagePredicate} alone; how they are checked, and how
 * they read in step titles and error messages ({@link describeCriteria}).
 *
 * @packageDocumentation
 */
import type { Address, MessageSummary } from '../../wire/schemas.ts';
import { matchesPattern, showPattern as show } from '../../extract/index.ts';
import { InboxkitError } from '../core/errors.ts';
import { formatAddress } from '../core/format.ts';
import type { ReceivedMessage } from './received.ts';

/** Whether `value` matches a criterion's pattern (see {@link MessageCriteria}); link filters match the same way. */
export { matchesPattern };

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

const CRITERIA_KEYS = ['subject', 'from', 'to', 'text', 'html', 'where'] as const;

/** A match normalised to criteria; throws a clear error for anything else. */
export function toCriteria(match: MessageMatch | undefined, where = 'waitForMessage'): MessageCriteria {
  if (match === undefined || match === null) return {};
  if (typeof match === 'function') return { where: match };
  if (typeof match !== 'object' || Array.isArray(match) || match instanceof RegExp) {
    throw new InboxkitError(
      `${where}: the match must be criteria ({ subject, from, to, text, html, where }) or a predicate (message) => boolean; got ${match instanceof RegExp ? `the RegExp ${String(match)}` : JSON.stringify(match)}. For a subject, write { subject: ${match instanceof RegExp ? String(match) : JSON.stringify(match)} }.`,
    );
  }
  for (const [key, value] of Object.entries(match)) {
    if (value === undefined) continue;
    if (!(CRITERIA_KEYS as readonly string[]).includes(key)) {
      throw new InboxkitError(`${where}: unknown criterion "${key}". The criteria are ${CRITERIA_KEYS.join(', ')}.`);
    }
    if (key === 'where') {
      if (typeof value !== 'function') throw new InboxkitError(`${where}: "where" must be a function (message) => boolean; got ${typeof value}.`);
    } else if (typeof value !== 'string' && !(value instanceof RegExp)) {
      throw new InboxkitError(`${where}: "${key}" must be a string (contains, case-insensitive) or a RegExp; got ${value === null ? 'null' : typeof value}.`);
    }
  }
  return match;
}

/**
 * A short human title of what a wait matches, for report steps and errors:
 * `subject ~ /Confirm/ and from "no-reply@acme.example"` (`~` for a RegExp,
 * a quoted string for "contains"), `a message the predicate accepts`, or
 * `any message`.
 *
 * @example
 * ```ts
 * describeCriteria({ subject: /Confirm/, from: 'no-reply@acme.example' });
 * // 'subject ~ /Confirm/ and from "no-reply@acme.example"'
 * ```
 */
export function describeCriteria(match?: MessageMatch): string {
  if (match === undefined || match === null) return 'any message';
  if (typeof match === 'function') return 'a message the predicate accepts';
  if (typeof match !== 'object') return String(match);
  const parts: string[] = [];
  for (const key of CRITERIA_KEYS) {
    const value = match[key];
    if (value === undefined) continue;
    if (key === 'where') parts.push('the predicate');
    else if (typeof value === 'string' || value instanceof RegExp) parts.push(value instanceof RegExp ? `${key} ~ ${show(value)}` : `${key} ${show(value)}`);
  }
  return parts.length === 0 ? 'any message' : parts.join(' and ');
}

function collapse(value: string): string {
  return value.replace(/\s+/g, ' ');
}

function matchesAddress(pattern: string | RegExp, address: Address): boolean {
  return [address.address, address.name, formatAddress(address)].some((value) => value !== '' && matchesPattern(pattern, value));
}

function clip(value: string, max = 80): string {
  const one = collapse(value).trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The summary-level checks: subject, from, to. Returns what failed, as sentences (empty when all passed). */
export function summaryMismatches(criteria: MessageCriteria, summary: Pick<MessageSummary, 'subject' | 'from' | 'to' | 'cc'>): string[] {
  const failed: string[] = [];
  if (criteria.subject !== undefined && !matchesPattern(criteria.subject, summary.subject)) {
    failed.push(`subject ${JSON.stringify(clip(summary.subject))} did not match ${show(criteria.subject)}`);
  }
  if (criteria.from !== undefined && (summary.from === null || !matchesAddress(criteria.from, summary.from))) {
    failed.push(`from ${summary.from === null ? '(no sender)' : JSON.stringify(formatAddress(summary.from))} did not match ${show(criteria.from)}`);
  }
  if (criteria.to !== undefined) {
    const recipients = [...summary.to, ...summary.cc];
    if (!recipients.some((address) => matchesAddress(criteria.to as string | RegExp, address))) {
      const list = recipients.length === 0 ? '(no recipients)' : recipients.map((a) => formatAddress(a)).join(', ');
      failed.push(`to ${JSON.stringify(clip(list))} did not match ${show(criteria.to)}`);
    }
  }
  return failed;
}

/** Whether the criteria need the whole message (bodies or the predicate). */
export function needsFullMessage(criteria: MessageCriteria): boolean {
  return criteria.text !== undefined || criteria.html !== undefined || criteria.where !== undefined;
}

/** The body-level checks: text, html (not the predicate). Returns what failed. */
export function bodyMismatches(criteria: MessageCriteria, message: { text: string | null; html: string | null }): string[] {
  const failed: string[] = [];
  for (const key of ['text', 'html'] as const) {
    const pattern = criteria[key];
    if (pattern === undefined) continue;
    const body = message[key];
    if (body === null) failed.push(`the message has no ${key} body to match ${show(pattern)}`);
    else if (!matchesPattern(pattern, body)) failed.push(`${key} ${JSON.stringify(clip(body, 60))} did not match ${show(pattern)}`);
  }
  return failed;
}
