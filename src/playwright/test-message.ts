/**
 * {@link TestMessage}: the message the fixtures' waits hand out. It is the
 * client's `ReceivedMessage` plus what needs the running test: `checkLinks()`
 * and `unsubscribe()` (through the test's `request` context), and the config's
 * test DNS for `authentication()`, and `render()` in a browser of its own.
 *
 * @packageDocumentation
 */
import { test as base } from '@playwright/test';
import { InboxkitError, ReceivedMessage } from '../client/index.ts';
import { listUnsubscribeUris } from '../checks/content-checks.ts';
import { mergeTestDns } from '../checks/test-dns.ts';
import { throwFromCall } from '../errors/call-site.ts';
import type { AuthenticationOptions, AuthenticationReport, InboxHandle, LinkFilterArg, Message, TestDns } from '../client/index.ts';
import { resolveLink } from './resolve-link.ts';
import type { ResolvableLink } from './resolve-link.ts';
import { checkMessageLinks } from './link-check.ts';
import type { LinkCheckContext, LinkCheckOptions, LinkCheckReport } from './link-check.ts';
import { renderEmail } from './render.ts';
import type { BrowserSource, RenderOptions, RenderedEmail } from './render.ts';

/** What the fixtures give a message besides the request context. */
export interface TestMessageOptions {
  /** The config's test DNS (`use: { inboxkit: { dns } }`). */
  dns?: TestDns | undefined;
  /** The browser `render()` and the visual matchers render in. */
  browser?: BrowserSource | null;
}

/** What `message.unsubscribe()` did. */
export interface UnsubscribeResult {
  /** The List-Unsubscribe URI posted to. */
  url: string;
  /** The answer's status. */
  status: number;
}

/**
 * A message returned by the `inbox` fixture's waits: everything a
 * `ReceivedMessage` has (`links()`, `otp()`, `compatibility()`,
 * `authentication()`, `contentChecks()`, `spamCheck()` …) plus `checkLinks()`
 * and `unsubscribe()`.
 */
export class TestMessage extends ReceivedMessage {
  readonly #links: LinkCheckContext | null;
  readonly #browser: BrowserSource | null;
  readonly #dns: TestDns;

  /** Made by the fixtures' waits. */
  constructor(inbox: InboxHandle, data: Message, links: LinkCheckContext | null, options: TestMessageOptions = {}) {
    super(inbox, data);
    this.#links = links;
    this.#browser = options.browser ?? null;
    this.#dns = options.dns ?? {};
  }

  /** The test DNS of the config (`use: { inboxkit: { dns } }`) that `authentication()` starts from. */
  get testDns(): TestDns {
    return this.#dns;
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
   * The one link that matches `filter` (see `ReceivedMessage.link()`), with
   * `resolve()`: it follows a click-tracking redirect whose target cannot be
   * read offline through the test's `request` context.
   *
   * @example
   * ```ts
   * const { href } = await message.link('Confirm email').resolve();
   * await page.goto(href);
   * ```
   */
  override link(filter?: LinkFilterArg): ResolvableLink {
    const link = throwFromCall(TestMessage.prototype.link, () => super.link(filter));
    return {
      ...link,
      resolve: (options) => {
        const { request } = this.#request('link().resolve');
        return base.step(`resolve link: ${link.href}`, () => resolveLink(link, request, options), { box: true });
      },
    };
  }

  #request(what: string): LinkCheckContext {
    if (this.#links === null) {
      throw new Error(`${what}: this message was not made by the inbox fixture of a running test, so it has no request context; use a message from inbox.waitForMessage().`);
    }
    return this.#links;
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
    const links = this.#request('checkLinks');
    return base.step(`check links: ${JSON.stringify(this.subject)}`, () => checkMessageLinks(this, links, options), { box: true });
  }

  /**
   * Sender authentication against the config's test DNS (`use: { inboxkit: { dns } }`)
   * with this call's `dns` added name by name (a name it gives, in any case and with or
   * without the trailing dot, replaces the config's); see `ReceivedMessage.authentication()`.
   */
  override async authentication(options: AuthenticationOptions = {}): Promise<AuthenticationReport> {
    return super.authentication({ ...options, dns: mergeTestDns(this.#dns, options.dns) });
  }

  /**
   * Unsubscribes the way Gmail and Yahoo do (RFC 8058 one-click): a POST of
   * `List-Unsubscribe=One-Click` to the message's http(s) List-Unsubscribe URI,
   * through the test's `request` context, so the test proves the app honours it.
   * Throws when the message offers no one-click unsubscribe or the app answers 400 or more.
   *
   * @example
   * ```ts
   * await newsletter.unsubscribe();
   * await expect(page.getByText('You are unsubscribed')).toBeVisible();
   * ```
   */
  async unsubscribe(): Promise<UnsubscribeResult> {
    const { request } = this.#request('unsubscribe');
    const header = this.headers['list-unsubscribe'];
    const subject = JSON.stringify(this.subject);
    if (header === undefined) throw new InboxkitError(`unsubscribe: ${subject} has no List-Unsubscribe header; bulk mail needs one (content rule list-unsubscribe).`);
    const uris = listUnsubscribeUris(header.replace(/\n/g, ', '));
    const url = uris?.find((u) => /^https:/i.test(u)) ?? uris?.find((u) => /^http:/i.test(u));
    if (!url) throw new InboxkitError(`unsubscribe: the List-Unsubscribe of ${subject} (${header}) has no http(s) URI to POST to (content rule one-click-unsubscribe).`);
    if (!/^List-Unsubscribe=One-Click$/i.test((this.headers['list-unsubscribe-post'] ?? '').trim())) {
      throw new InboxkitError(`unsubscribe: ${subject} has no "List-Unsubscribe-Post: List-Unsubscribe=One-Click" header, so it does not offer one-click unsubscribe (RFC 8058).`);
    }
    return base.step(`unsubscribe: ${subject}`, async () => {
      const response = await request.post(url, { form: { 'List-Unsubscribe': 'One-Click' }, maxRedirects: 0, failOnStatusCode: false });
      if (response.status() >= 400) {
        throw new InboxkitError(`unsubscribe: the one-click POST to ${url} answered ${response.status()} ${response.statusText()}; RFC 8058 wants it to unsubscribe without a login or a page.`);
      }
      return { url, status: response.status() };
    }, { box: true });
  }
}
