/**
 * {@link TestMessage}: the message the fixtures' waits hand out. It is the
 * client's `ReceivedMessage` plus `checkLinks()`, which needs the running
 * test's `request` context.
 *
 * @packageDocumentation
 */
import { test as base } from '@playwright/test';
import { ReceivedMessage } from '../client/index.ts';
import type { InboxHandle, Message } from '../client/index.ts';
import { checkMessageLinks } from './link-check.ts';
import type { LinkCheckContext, LinkCheckOptions, LinkCheckReport } from './link-check.ts';

/**
 * A message returned by the `inbox` fixture's waits: everything a
 * `ReceivedMessage` has (`links()`, `otp()`, `compatibility()` …) plus
 * `checkLinks()`.
 */
export class TestMessage extends ReceivedMessage {
  readonly #links: LinkCheckContext | null;

  /** Made by the fixtures' waits. */
  constructor(inbox: InboxHandle, data: Message, links: LinkCheckContext | null) {
    super(inbox, data);
    this.#links = links;
  }

  /**
   * Requests every http(s) link and image of the email through the test's
   * `request` context (reaching the app at `baseURL`, with the test's proxy and
   * cookies), following redirects up to `maxRedirects`, a few at a time.
   * Only the app's origin (and what `allow` adds) is contacted; links elsewhere
   * are listed as skipped. Tracking-wrapped links are checked at their target.
   * A report step titled `check links: <subject>`.
   *
   * @example
   * ```ts
   * const { broken } = await message.checkLinks();
   * expect(broken).toEqual([]);
   * ```
   */
  async checkLinks(options?: LinkCheckOptions): Promise<LinkCheckReport> {
    const links = this.#links;
    if (links === null) {
      throw new Error('checkLinks: this message was not made by the inbox fixture of a running test, so it has no request context; use a message from inbox.waitForMessage().');
    }
    return base.step(`check links: ${JSON.stringify(this.subject)}`, () => checkMessageLinks(this, links, options), { box: true });
  }
}
