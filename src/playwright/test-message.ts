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
import { renderEmail } from './render.ts';
import type { BrowserSource, RenderOptions, RenderedEmail } from './render.ts';

/**
 * A message returned by the `inbox` fixture's waits: everything a
 * `ReceivedMessage` has (`links()`, `otp()`, `compatibility()` …) plus
 * `checkLinks()`.
 */
export class TestMessage extends ReceivedMessage {
  readonly #links: LinkCheckContext | null;
  readonly #browser: BrowserSource | null;

  /** Made by the fixtures' waits. */
  constructor(inbox: InboxHandle, data: Message, links: LinkCheckContext | null, browser: BrowserSource | null = null) {
    super(inbox, data);
    this.#links = links;
    this.#browser = browser;
  }

  /**
   * Renders the email in a page of its own (a fresh context of a browser of the
   * project's type; the test's `page` is left alone), as `toHaveScreenshot` and
   * `toBeAccessible` do. Close it with `close()` when done.
   *
   * @example
   * ```ts
   * const render = await message.render({ width: 'mobile', colorScheme: 'dark' });
   * try {
   *   await expect(render.page.getByRole('link', { name: 'Confirm' })).toBeInViewport();
   * } finally {
   *   await render.close();
   * }
   * ```
   */
  async render(options?: RenderOptions): Promise<RenderedEmail> {
    const browser = this.#browser;
    if (browser === null) {
      throw new Error('render: this message was not made by the inbox fixture of a running test, so it has no browser to render in; use a message from inbox.waitForMessage().');
    }
    return renderEmail(browser, this, options);
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
