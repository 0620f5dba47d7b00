/**
 * {@link explainTimeout}: the text of a `WaitTimeoutError`, from what the wait
 * saw. A pure function: the same facts always give the same explanation.
 *
 * @packageDocumentation
 */
import { isPhoneLocalPart } from '../../wire/phones.ts';
import type { MessageSummary } from '../../wire/schemas.ts';
import { formatAddress } from '../internal/format.ts';
import type { WaitMismatch } from './errors.ts';

/** How many non-matching messages a timeout error lists, and how many with their failed criteria. */
const LIST_ARRIVALS = 20;
const LIST_MISMATCHES = 5;

/** What a wait knew when its time ran out. @internal */
export interface TimeoutFacts {
  /** Which call timed out, e.g. `waitForMessage`. */
  call: string;
  /** The criteria in words. */
  description: string;
  /** The inbox's address. */
  address: string;
  /** The timeout that ran out, in milliseconds. */
  timeout: number;
  /** How long the wait actually ran, in milliseconds. */
  elapsedMs: number;
  /** How many matches were wanted. */
  count: number;
  since: 'now' | 'backlog';
  /** Subjects of the matches found before the time ran out. */
  matchedSubjects: string[];
  /** The messages looked at that did not match, oldest first. */
  rejected: WaitMismatch[];
  /** With `since: 'now'`: the newest `seq` that was in the inbox when the wait started. */
  startedAfter: number | null;
  /** How many messages earlier waits of the handle had returned. */
  returnedCount: number;
  /** Why the event stream was unavailable, `null` when it was live. */
  fallbackReason: string | null;
  /** How many times the message list was polled. */
  polls: number;
  /** The error of the last poll, `null` when it succeeded. */
  lastPollError: unknown;
}

/** The newest mismatches, newest first: the ones a timeout error details. */
export function newestMismatches(rejected: readonly WaitMismatch[]): WaitMismatch[] {
  return rejected.slice(-LIST_MISMATCHES).reverse();
}

function clock(iso: string): string {
  const m = /T(\d\d:\d\d:\d\d(?:\.\d+)?)/.exec(iso);
  return m?.[1] ?? iso;
}

function sender(summary: MessageSummary): string {
  return formatAddress(summary.from, '(no sender)');
}

/** The phone number of an inbox address that is a phone's (`+1…@domain`), or null for an email inbox. */
function phoneOf(address: string): string | null {
  const local = address.slice(0, address.lastIndexOf('@'));
  return isPhoneLocalPart(local) ? local : null;
}

/** How the explanation names the inbox: its number for a phone, its address otherwise. */
function where(facts: TimeoutFacts): string {
  return phoneOf(facts.address) ?? facts.address;
}

/** A message in a list: its subject, or for an SMS (no subject) the start of its text. */
function titleOf(summary: MessageSummary): string {
  return summary.subject === '' && summary.preview !== '' ? `text ${JSON.stringify(summary.preview.slice(0, 60))}` : JSON.stringify(summary.subject);
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Whether the inbox has received no email at all: none before the wait, none during it, none returned earlier. */
function receivedNothing(facts: TimeoutFacts): boolean {
  return facts.rejected.length === 0 && facts.matchedSubjects.length === 0 && facts.returnedCount === 0 && !(facts.startedAfter !== null && facts.startedAfter > 0);
}

const NOTHING_TEXTED =
  'This phone has received no SMS at all. A common cause: the application refused the number before texting it (a phone-number validator), or it texted through the real provider: ' +
  'point its SDK at the service with the variables inboxkitServer() hands it (INBOXKIT_TWILIO_BASE_URL, INBOXKIT_SNS_ENDPOINT, INBOXKIT_VONAGE_REST_HOST, INBOXKIT_PLIVO_BASE_URL, INBOXKIT_SMS_URL; docs/phones.md).';

const NOTHING_RECEIVED =
  'This inbox has received no email at all. A common cause: the application refused the address before sending anything, with a validation error on its form ' +
  '(some email validators refuse reserved domains such as .test); look at the page in the trace or the screenshot, and use a domain the application accepts (inboxkitServer({ domain }), inboxkit serve --domain).';

function arrivals(facts: TimeoutFacts): string[] {
  const { rejected } = facts;
  if (rejected.length === 0) {
    const what = facts.since === 'now' ? 'since the wait started' : 'that an earlier wait had not returned';
    const phone = phoneOf(facts.address);
    return [
      `No ${facts.matchedSubjects.length > 0 ? 'other ' : ''}${phone ? 'SMS' : 'message'} arrived ${what} (${Math.round(facts.elapsedMs / 100) / 10} s).`,
      phone
        ? `Check that the application texted exactly ${phone}, through a provider SDK pointed at this inbox service (not the real provider or another instance).`
        : `Check that the application sent the mail to exactly ${facts.address}, and that its SMTP host and port point at this inbox service (not a real mail server or another instance).`,
      ...(receivedNothing(facts) ? [phone ? NOTHING_TEXTED : NOTHING_RECEIVED] : []),
    ];
  }
  const detailed = new Set(rejected.slice(-LIST_MISMATCHES));
  const cut = rejected.length > LIST_ARRIVALS ? ` (the newest ${LIST_ARRIVALS} shown)` : '';
  return [
    `${plural(rejected.length, 'message')} arrived that did not match${cut}:`,
    ...rejected.slice(-LIST_ARRIVALS).map((r) => {
      const because = detailed.has(r) ? `: ${r.failed.join('; ')}` : '';
      return `  - ${clock(r.message.receivedAt)} from ${sender(r.message)} ${titleOf(r.message)}${because}`;
    }),
  ];
}

/**
 * Explains a timed-out wait: what it waited for, what arrived instead (and which
 * criterion each of the newest failed) or, when nothing arrived, what to check;
 * then what was ignored and whether the stream had to be replaced by polling.
 */
export function explainTimeout(facts: TimeoutFacts): string {
  const wanted = facts.count === 1 ? 'a message' : `${facts.count} messages`;
  const lines = [`${facts.call} timed out after ${facts.timeout} ms waiting for ${wanted} matching ${facts.description} at ${where(facts)}.`];
  if (facts.count > 1) {
    lines.push(`Found ${facts.matchedSubjects.length} of ${facts.count}: ${facts.matchedSubjects.map((s) => JSON.stringify(s)).join(', ') || 'none'}.`);
  }
  lines.push(...arrivals(facts));
  if (facts.since === 'now' && facts.startedAfter !== null && facts.startedAfter > 0) {
    lines.push(`Messages already in the inbox when the wait started (seq ≤ ${facts.startedAfter}) were ignored (since: 'now').`);
  }
  if (facts.returnedCount > 0) {
    const verb = facts.returnedCount === 1 ? 'was' : 'were';
    lines.push(`${plural(facts.returnedCount, 'message')} already returned by earlier waits on this inbox handle ${verb} not considered again (each message is returned once per handle).`);
  }
  if (facts.fallbackReason !== null) lines.push(`The event stream was unavailable (${facts.fallbackReason}); the message list was polled ${plural(facts.polls, 'time')}.`);
  if (facts.lastPollError instanceof Error) lines.push(`The last poll failed: ${facts.lastPollError.message}`);
  return lines.join('\n');
}
