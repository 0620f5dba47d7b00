/**
 * The inboxkit matchers for `expect.extend`: `toHaveReceived` (on an inbox),
 * `toHaveLink` and `toHaveOtp` (on a received message), all with `.not`; the
 * checks of the email itself (`toHaveWorkingLinks`, `toBeCompatibleWith`,
 * `toHaveScreenshot`, `toBeAccessible`).
 *
 * @packageDocumentation
 */
import type { ExpectMatcherState, MatcherReturnType } from '@playwright/test';
import { InboxkitError, OtpNotFoundError } from '../client/index.ts';
import { describeCriteria } from '../client/internal/criteria.ts';
import { describeLinkFilter } from '../extract/index.ts';
import type { MessageMatch, ReceivedMessage } from '../client/index.ts';
import { TestInbox } from './test-inbox.ts';
import { checkMatchers } from './check-matchers.ts';
import { visualMatchers } from './visual-matchers.ts';
import { emailCheckMatchers } from './email-check-matchers.ts';

/** What `toHaveLink` accepts: link text or href (string: contains, case-insensitive; RegExp), a filter object, or a predicate. */
export type LinkMatch = Parameters<ReceivedMessage['links']>[0];

/** Options of `toHaveReceived`. */
export interface ToHaveReceivedOptions {
  /**
   * Milliseconds to wait for a matching message (with `.not`: during which none may arrive).
   * @defaultValue like `inbox.waitForMessage()`: the test's remaining time minus a teardown reserve; with `.not`, the `expect` timeout
   */
  timeout?: number;
}

/** How many received messages or links a failure message lists at most. */
const LIST_LIMIT = 20;

/** A link filter in words: `text or href contains "Confirm"`, `text matches /reset/i, host is "acme.example" or a subdomain of it`. */
export const describeLinkMatch: (filter: LinkMatch) => string = describeLinkFilter;

function isReceivedMessage(value: unknown): value is ReceivedMessage {
  return typeof value === 'object' && value !== null && typeof (value as ReceivedMessage).links === 'function' && typeof (value as ReceivedMessage).otp === 'function';
}

function notAMessage(state: ExpectMatcherState, matcher: string, value: unknown): InboxkitError {
  return new InboxkitError(
    `${state.utils.matcherHint(matcher, 'message', undefined, { isNot: state.isNot })}\n\n` +
      `The received value must be a message returned by inbox.waitForMessage() (it has links() and otp()); got ${state.utils.printReceived(value)}.`,
  );
}

async function listReceived(inbox: TestInbox): Promise<string> {
  const summaries = await inbox.messages(LIST_LIMIT + 1).catch(() => null);
  if (summaries === null) return '(the inbox could not be listed)';
  if (summaries.length === 0) return `no message at all arrived at ${inbox.address}`;
  const lines = summaries
    .slice(0, LIST_LIMIT)
    .reverse()
    .map((m) => `  - ${JSON.stringify(m.subject)} from ${m.from?.address ?? '(unknown sender)'} to ${m.to.map((t) => t.address).join(', ') || '(none)'} at ${m.receivedAt}`);
  const more = summaries.length > LIST_LIMIT ? `\n  … and more` : '';
  return `${summaries.length > LIST_LIMIT ? `more than ${LIST_LIMIT}` : summaries.length} message${summaries.length === 1 ? '' : 's'} arrived at ${inbox.address}, none matching:\n${lines.join('\n')}${more}`;
}

/**
 * The matchers, for `expect.extend(inboxkitMatchers)` (the `expect` exported by
 * `inboxkit/playwright` already has them).
 *
 * @example
 * ```ts
 * await expect(inbox).toHaveReceived({ subject: 'Welcome' });
 * await expect(inbox).not.toHaveReceived({ subject: /invoice/i }, { timeout: 2_000 });
 * const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
 * expect(message).toHaveLink({ text: 'Confirm email', host: '127.0.0.1' });
 * expect(message).toHaveOtp();
 * ```
 */
export const inboxkitMatchers = {
  /**
   * Passes once a message that matches is in the inbox (one that arrived before
   * the call counts). With `.not`: fails when one is there or arrives within the timeout.
   */
  async toHaveReceived(this: ExpectMatcherState, inbox: TestInbox, match?: MessageMatch, options: ToHaveReceivedOptions = {}): Promise<MatcherReturnType> {
    const name = 'toHaveReceived';
    if (!(inbox instanceof TestInbox)) {
      throw new InboxkitError(
        `${this.utils.matcherHint(name, 'inbox', 'criteria', { isNot: this.isNot, promise: this.promise })}\n\n` +
          `The received value must be an inbox from the \`inbox\` fixture or createInbox(); got ${this.utils.printReceived(inbox)}.`,
      );
    }
    const hint = this.utils.matcherHint(name, 'inbox', 'criteria', { isNot: this.isNot, promise: this.promise });
    const wanted = describeCriteria(match);
    // An assertion looks, it does not consume: `peek` sees every message, including ones
    // the inbox's waits already returned, and leaves the next wait's messages alone.
    const timeout = options.timeout ?? (this.isNot ? this.timeout : inbox.defaultTimeout());
    const found = await inbox.handle.peek(match, { within: timeout });
    if (found !== null) await inbox.attach(found);
    if (this.isNot) {
      return {
        pass: found !== null,
        name,
        expected: wanted,
        message: () =>
          `${hint}\n\nExpected: no message matching ${this.utils.printExpected(wanted)}\n` +
          (found === null
            ? `Received: none within ${timeout}ms`
            : `Received: ${this.utils.printReceived(found.subject)} from ${found.from?.address ?? '(unknown sender)'} at ${found.receivedAt}`),
      };
    }
    if (found !== null) {
      return {
        pass: true,
        name,
        expected: wanted,
        message: () => `${hint}\n\nExpected: a message matching ${this.utils.printExpected(wanted)}\nReceived: ${this.utils.printReceived(found.subject)}`,
      };
    }
    const received = await listReceived(inbox);
    return {
      pass: false,
      name,
      expected: wanted,
      timeout,
      message: () => `${hint}\n\nExpected: a message matching ${this.utils.printExpected(wanted)}\nReceived: ${received}\n\nTimeout: ${timeout}ms`,
    };
  },

  /** Passes when the message has a link that matches (see `message.links()` for the filter). */
  toHaveLink(this: ExpectMatcherState, message: ReceivedMessage, filter?: LinkMatch): MatcherReturnType {
    const name = 'toHaveLink';
    if (!isReceivedMessage(message)) throw notAMessage(this, name, message);
    const hint = this.utils.matcherHint(name, 'message', 'filter', { isNot: this.isNot, promise: this.promise });
    const wanted = describeLinkMatch(filter);
    const matching = message.links(filter);
    const show = (links: ReturnType<ReceivedMessage['links']>) =>
      links
        .slice(0, LIST_LIMIT)
        .map((l) => `  - ${JSON.stringify(l.text)} → ${l.href}`)
        .join('\n') + (links.length > LIST_LIMIT ? `\n  … and ${links.length - LIST_LIMIT} more` : '');
    if (matching.length > 0) {
      return {
        pass: true,
        name,
        expected: wanted,
        message: () => `${hint}\n\nExpected: no link where ${this.utils.printExpected(wanted)}\nReceived: ${matching.length} matching link${matching.length === 1 ? '' : 's'} in ${JSON.stringify(message.subject)}:\n${show(matching)}`,
      };
    }
    const all = message.links();
    return {
      pass: false,
      name,
      expected: wanted,
      message: () =>
        `${hint}\n\nExpected: a link where ${this.utils.printExpected(wanted)}\n` +
        (all.length === 0
          ? `Received: no links at all in ${JSON.stringify(message.subject)}`
          : `Received: ${all.length} link${all.length === 1 ? '' : 's'} in ${JSON.stringify(message.subject)}, none matching:\n${show(all)}`),
    };
  },

  /**
   * Passes when a one-time code can be read from the message (`message.otp()`),
   * and, when `expected` is given, when it is that code (spaces and hyphens ignored).
   */
  toHaveOtp(this: ExpectMatcherState, message: ReceivedMessage, expected?: string): MatcherReturnType {
    const name = 'toHaveOtp';
    if (!isReceivedMessage(message)) throw notAMessage(this, name, message);
    const hint = this.utils.matcherHint(name, 'message', expected === undefined ? '' : 'expected', { isNot: this.isNot, promise: this.promise });
    let code: string | null = null;
    let why = '';
    try {
      code = message.otp();
    } catch (error) {
      if (!(error instanceof OtpNotFoundError)) throw error;
      why = error.message;
    }
    const want = expected === undefined ? null : expected.replace(/[\s.-]+/g, '');
    const pass = code !== null && (want === null || code.toLowerCase() === want.toLowerCase());
    const candidates = message.otps();
    const listed =
      candidates.length === 0
        ? ''
        : `\nCandidates: ${candidates
            .slice(0, 5)
            .map((c) => `${c.code} (score ${c.score}${c.reasons.length > 0 ? `: ${c.reasons.join(', ')}` : ''})`)
            .join('; ')}`;
    const expectedText = want === null ? 'a one-time code' : `the one-time code ${this.utils.printExpected(want)}`;
    return {
      pass,
      name,
      expected: want ?? undefined,
      actual: code ?? undefined,
      message: () =>
        pass
          ? `${hint}\n\nExpected: not ${expectedText}\nReceived: ${this.utils.printReceived(code)} in ${JSON.stringify(message.subject)}`
          : `${hint}\n\nExpected: ${expectedText}\nReceived: ${code === null ? 'no code' : this.utils.printReceived(code)} in ${JSON.stringify(message.subject)}${listed}${why ? `\n\n${why}` : ''}`,
    };
  },
  ...checkMatchers,
  ...visualMatchers,
  ...emailCheckMatchers,
};
