/**
 * Matchers that test the email itself: `toHaveWorkingLinks` (through the
 * test's `request` context) and `toBeCompatibleWith` (the caniemail data).
 * Part of `inboxkitMatchers`.
 *
 * @packageDocumentation
 */
import { test as base } from '@playwright/test';
import type { ExpectMatcherState, MatcherReturnType } from '@playwright/test';
import type { ClientCompatibility, CompatibilityReport, EmailClientNames, ReceivedMessage } from '../client/index.ts';
import { describeCheckedLink, describeLinkReport } from './link-check.ts';
import type { LinkCheckOptions } from './link-check.ts';
import { TestMessage } from './test-message.ts';

/** Options of `toBeCompatibleWith`. */
export interface CompatibilityOptions {
  /**
   * Whether features a client supports only in part fail the assertion too.
   * @defaultValue false
   */
  failOnPartial?: boolean;
  /**
   * Features to accept anyway, by caniemail slug (`css-display-flex`) or title (`display:flex`).
   * @defaultValue `[]`
   */
  ignore?: readonly string[];
}

function describeClient(client: ClientCompatibility, partial: boolean, ignored: (slug: string, title: string) => boolean): string[] {
  const lines: string[] = [];
  const list = (kind: string, features: ClientCompatibility['unsupported']) => {
    for (const f of features) {
      if (ignored(f.slug, f.feature)) continue;
      const where = f.lines.length > 0 ? ` (line ${f.lines.join(', ')})` : '';
      lines.push(`    ${kind} ${f.feature}${where}, used ${f.occurrences}× — ${f.url}`);
    }
  };
  list('not supported:', client.unsupported);
  if (partial) list('partly supported:', client.partial);
  return lines;
}

async function attach(name: string, body: string): Promise<void> {
  await base.info().attach(name, { body, contentType: 'text/plain' });
}

/** The matchers; spread into `inboxkitMatchers`. */
export const checkMatchers = {
  /**
   * Passes when every http(s) link and image the message may check (the app's
   * origin, plus `allow`) works: it answers below 400, in at most `maxRedirects`
   * redirects. The failure lists each broken link with its text, URL and status
   * or error, and the whole check is attached to the report.
   */
  async toHaveWorkingLinks(this: ExpectMatcherState, message: TestMessage, options?: LinkCheckOptions): Promise<MatcherReturnType> {
    const name = 'toHaveWorkingLinks';
    const hint = this.utils.matcherHint(name, 'message', 'options', { isNot: this.isNot, promise: this.promise });
    if (!(message instanceof TestMessage)) {
      throw new Error(
        `${hint}\n\nThe received value must be a message from the inbox fixture's waits (inbox.waitForMessage()), which checks links through the test's request context; got ${this.utils.printReceived(message)}.`,
      );
    }
    const report = await message.checkLinks(options);
    const pass = report.broken.length === 0;
    if (!pass || this.isNot) await attach(`link check — ${message.subject}`, describeLinkReport(report));
    const checked = report.ok.length + report.broken.length;
    return {
      pass,
      name,
      message: () =>
        pass
          ? `${hint}\n\nExpected: a broken link in ${JSON.stringify(message.subject)}\nReceived: all ${checked} checked links work (${report.skipped.length} skipped)`
          : `${hint}\n\nExpected: every checked link of ${JSON.stringify(message.subject)} to work\n` +
            `Received: ${report.broken.length} of ${checked} broken:\n${report.broken.map((l) => `  ${describeCheckedLink(l)}`).join('\n')}` +
            (report.skipped.length > 0 ? `\n\n${report.skipped.length} skipped (not requested): ${report.skipped.map((l) => l.url).join(', ')}` : ''),
    };
  },

  /**
   * Passes when none of the named clients lacks an HTML or CSS feature the
   * message uses (per the bundled caniemail data; partial support passes unless
   * `failOnPartial`). The failure lists the features per client with lines and
   * links to caniemail.com, and Mailpit's score per client.
   *
   * @example
   * ```ts
   * await expect(message).toBeCompatibleWith(['gmail', 'outlook.windows', 'apple-mail']);
   * ```
   */
  async toBeCompatibleWith(this: ExpectMatcherState, message: ReceivedMessage, clients: EmailClientNames, options: CompatibilityOptions = {}): Promise<MatcherReturnType> {
    const name = 'toBeCompatibleWith';
    const hint = this.utils.matcherHint(name, 'message', 'clients', { isNot: this.isNot, promise: this.promise });
    if (typeof message !== 'object' || message === null || typeof (message as ReceivedMessage).compatibility !== 'function') {
      throw new Error(`${hint}\n\nThe received value must be a message returned by inbox.waitForMessage(); got ${this.utils.printReceived(message)}.`);
    }
    const report: CompatibilityReport = await message.compatibility(clients);
    const ignore = new Set((options.ignore ?? []).map((s) => s.toLowerCase()));
    const ignored = (slug: string, title: string) => ignore.has(slug.toLowerCase()) || ignore.has(title.toLowerCase());
    const failing = report.clients.filter((c) => [...c.unsupported, ...(options.failOnPartial ? c.partial : [])].some((f) => !ignored(f.slug, f.feature)));
    const pass = failing.length === 0;
    const body = report.clients
      .map((c) => [`  ${c.name} (${c.client}): score ${c.score.supported}% supported, ${c.score.partial}% partial, ${c.score.unsupported}% unsupported`, ...describeClient(c, options.failOnPartial ?? false, ignored)].join('\n'))
      .join('\n');
    const source = report.source === 'sanitized' ? '\n(The server serves no raw source, so the sanitized HTML was checked.)' : '';
    if (!pass || this.isNot) await attach(`compatibility — ${message.subject}`, `caniemail data of ${report.dataUpdated}${source}\n${body}`);
    return {
      pass,
      name,
      message: () =>
        pass
          ? `${hint}\n\nExpected: a feature of ${JSON.stringify(message.subject)} that one of the clients does not support\nReceived: none\n${body}${source}`
          : `${hint}\n\nExpected: ${JSON.stringify(message.subject)} to use only features ${report.clients.map((c) => c.name).join(', ')} support\n` +
            `Received: ${failing.length} client${failing.length === 1 ? '' : 's'} lacking features:\n${failing
              .map((c) => [`  ${c.name} (${c.client}): score ${c.score.supported}% supported`, ...describeClient(c, options.failOnPartial ?? false, ignored)].join('\n'))
              .join('\n')}${source}`,
    };
  },
};
