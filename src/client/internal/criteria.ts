/**
 * How the criteria of a wait ({@link MessageCriteria}) are checked against a
 * message, and how they read in step titles and error messages
 * ({@link describeCriteria}). Internal: the waits and the fixtures use it.
 *
 * @packageDocumentation
 */
import type { Address, MessageSummary } from '../../wire/schemas.ts';
import { matchesPattern, showPattern as show } from '../../extract/index.ts';
import { InboxkitError } from '../core/errors.ts';
import { formatAddress } from './format.ts';
import type { MessageCriteria, MessageMatch } from '../message/criteria.ts';

/** Whether `value` matches a criterion's pattern (see {@link MessageCriteria}); link filters match the same way. */
export { matchesPattern };

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
