/**
 * Matchers that judge whether an email would reach the inbox:
 * `toBeAuthenticated` (DKIM, SPF, DMARC against the test DNS),
 * `toPassContentChecks` (the content rules), `toPassSpamCheck` (a real
 * scanner's score) and `toPassEmailChecks` (all of them, with links and
 * client compatibility). Each attaches its result to the report as a table.
 * Part of `inboxkitMatchers`.
 *
 * @packageDocumentation
 */
import { test as base } from '@playwright/test';
import type { ExpectMatcherState, MatcherReturnType } from '@playwright/test';
import type { EmailClientNames } from '../client/index.ts';
import type { CompatibilityOptions } from './check-matchers.ts';
import { checkIgnoredRules, noScanner, runAuthentication, runContent, runSpam, textTable } from './email-checks.ts';
import type { AuthenticationExpectations, CheckOutcome, ContentExpectations, SpamExpectations } from './email-checks.ts';
import { describeLinkReport } from './link-check.ts';
import type { LinkCheckOptions } from './link-check.ts';
import { TestMessage } from './test-message.ts';

/** Options of `toPassEmailChecks`: one entry per family; `false` leaves a family out. */
export interface EmailChecksOptions {
  /**
   * Sender authentication. Runs when given, or when the config has a test DNS (`use: { inboxkit: { dns } }`).
   * @defaultValue run (all `pass`) when the config has a test DNS, otherwise skipped
   */
  authentication?: AuthenticationExpectations | false;
  /**
   * The content rules.
   * @defaultValue run, every finding fails
   */
  content?: ContentExpectations | false;
  /**
   * The spam check. When given, a service without a scanner fails; by default it is then skipped, saying why.
   * @defaultValue run when the service has a scanner
   */
  spam?: SpamExpectations | false;
  /**
   * The link check through the test's `request` context.
   * @defaultValue run with its defaults (the app's origin only)
   */
  links?: LinkCheckOptions | false;
  /**
   * Client compatibility: runs when `clients` are named.
   * @defaultValue skipped
   */
  compatibility?: (CompatibilityOptions & { clients: EmailClientNames }) | false;
}

function skipped(family: string, why: string): CheckOutcome {
  return { family, pass: true, skipped: why, table: `skipped: ${why}`, failures: [] };
}

async function attach(family: string, message: TestMessage, outcome: CheckOutcome): Promise<void> {
  await base.info().attach(`${family} — ${message.subject}`, { body: outcome.table, contentType: 'text/plain' });
}

function asTestMessage(state: ExpectMatcherState, name: string, message: unknown): TestMessage {
  if (message instanceof TestMessage) return message;
  const hint = state.utils.matcherHint(name, 'message', '', { isNot: state.isNot, promise: state.promise });
  throw new Error(`${hint}\n\nThe received value must be a message from the inbox fixture's waits (inbox.waitForMessage()); got ${state.utils.printReceived(message)}.`);
}

async function judge(state: ExpectMatcherState, name: string, message: TestMessage, outcome: CheckOutcome, expected: string): Promise<MatcherReturnType> {
  await attach(outcome.family, message, outcome);
  const hint = state.utils.matcherHint(name, 'message', 'options', { isNot: state.isNot, promise: state.promise });
  const subject = JSON.stringify(message.subject);
  return {
    pass: outcome.pass,
    name,
    message: () =>
      outcome.pass
        ? `${hint}\n\nExpected: ${subject} not to ${expected}\nReceived: it does\n\n${outcome.table}`
        : `${hint}\n\nExpected: ${subject} to ${expected}\nReceived:\n${outcome.failures.map((f) => `  ${f}`).join('\n')}\n\n${outcome.table}`,
  };
}

async function runLinks(message: TestMessage, options: LinkCheckOptions): Promise<CheckOutcome> {
  const report = await message.checkLinks(options);
  return { family: 'links', pass: report.broken.length === 0, skipped: null, table: describeLinkReport(report), failures: report.broken.map((l) => `broken link ${l.url}: ${l.error ?? `status ${l.status}`}`) };
}

async function runCompatibility(message: TestMessage, options: CompatibilityOptions & { clients: EmailClientNames }): Promise<CheckOutcome> {
  const report = await message.compatibility(options.clients);
  const ignore = new Set((options.ignore ?? []).map((s) => s.toLowerCase()));
  const rows: string[][] = [];
  const failures: string[] = [];
  for (const client of report.clients) {
    const features = [...client.unsupported.map((f) => ['not supported', f] as const), ...(options.failOnPartial ? client.partial.map((f) => ['partly supported', f] as const) : [])];
    for (const [kind, f] of features) {
      if (ignore.has(f.slug.toLowerCase()) || ignore.has(f.feature.toLowerCase())) continue;
      rows.push([client.name, kind, f.feature, f.url]);
      failures.push(`${client.name}: ${kind} ${f.feature} — ${f.url}`);
    }
  }
  const scores = report.clients.map((c) => `${c.name} ${c.score.supported}%`).join(', ');
  return { family: 'compatibility', pass: failures.length === 0, skipped: null, failures, table: `scores: ${scores}\n\n${rows.length > 0 ? textTable(['client', 'support', 'feature', 'caniemail'], rows) : 'Every feature used is supported.'}` };
}

/** The matchers; spread into `inboxkitMatchers`. */
export const emailCheckMatchers = {
  /**
   * Passes when DKIM (every signature), SPF and DMARC give what is expected
   * (all `pass` by default) against the test DNS of the config plus `dns`. A
   * failure gives each result's reason and what to fix.
   *
   * @example
   * ```ts
   * await expect(message).toBeAuthenticated({ dns: { 'mail._domainkey.acme.example': `v=DKIM1; k=rsa; p=${key}` } });
   * await expect(message).toBeAuthenticated({ dkim: 'pass', spf: false, dmarc: ['pass', 'none'] });
   * ```
   */
  async toBeAuthenticated(this: ExpectMatcherState, message: TestMessage, options?: AuthenticationExpectations): Promise<MatcherReturnType> {
    const checked = asTestMessage(this, 'toBeAuthenticated', message);
    const outcome = await runAuthentication(checked, options);
    return judge(this, 'toBeAuthenticated', checked, outcome, `authenticate (DKIM ${options?.dkim ?? 'pass'}, SPF ${options?.spf ?? 'pass'}, DMARC ${options?.dmarc ?? 'pass'})`);
  },

  /**
   * Passes when no content rule finds anything (or only rules in `ignore`, or
   * only warnings with `failOn: 'error'`). An unknown rule id in `ignore` is an error.
   *
   * @example
   * ```ts
   * await expect(message).toPassContentChecks({ ignore: ['img-alt'] });
   * ```
   */
  async toPassContentChecks(this: ExpectMatcherState, message: TestMessage, options?: ContentExpectations): Promise<MatcherReturnType> {
    const checked = asTestMessage(this, 'toPassContentChecks', message);
    const outcome = await runContent(checked, options);
    return judge(this, 'toPassContentChecks', checked, outcome, 'pass the content rules');
  },

  /**
   * Passes when the service's spam scanner scores the message below its
   * threshold (or at most `maxScore`), local-only rules not counted. The
   * failure names the rules that count.
   *
   * @example
   * ```ts
   * await expect(message).toPassSpamCheck({ maxScore: 2 });
   * ```
   */
  async toPassSpamCheck(this: ExpectMatcherState, message: TestMessage, options?: SpamExpectations): Promise<MatcherReturnType> {
    const checked = asTestMessage(this, 'toPassSpamCheck', message);
    const outcome = await runSpam(checked, options);
    return judge(this, 'toPassSpamCheck', checked, outcome, `pass the spam check${options?.maxScore !== undefined ? ` with a score of at most ${options.maxScore}` : ''}`);
  },

  /**
   * Runs every email check at once — content rules, spam score, sender
   * authentication, links, client compatibility — with options per family, and
   * passes when all pass. Each family's table is attached to the report; a
   * family that cannot run here (no scanner, no test DNS, no clients named) is
   * skipped and says why, unless its options were given.
   *
   * @example
   * ```ts
   * await expect(message).toPassEmailChecks({ spam: { maxScore: 3 }, compatibility: { clients: ['gmail', 'outlook'] } });
   * ```
   */
  async toPassEmailChecks(this: ExpectMatcherState, message: TestMessage, options: EmailChecksOptions = {}): Promise<MatcherReturnType> {
    const checked = asTestMessage(this, 'toPassEmailChecks', message);
    if (options.content) checkIgnoredRules(options.content.ignore);
    const outcomes: CheckOutcome[] = [];
    outcomes.push(options.content === false ? skipped('content', 'content: false') : await runContent(checked, options.content));
    if (options.spam === false) outcomes.push(skipped('spam', 'spam: false'));
    else {
      outcomes.push(
        await runSpam(checked, options.spam).catch((error: unknown) => {
          const why = noScanner(error);
          if (why === null || options.spam !== undefined) throw error;
          return skipped('spam', why);
        }),
      );
    }
    if (options.authentication === false) outcomes.push(skipped('authentication', 'authentication: false'));
    else if (options.authentication === undefined && Object.keys(checked.testDns).length === 0) outcomes.push(skipped('authentication', 'no test DNS: set use: { inboxkit: { dns } } or pass authentication: { dns }'));
    else outcomes.push(await runAuthentication(checked, options.authentication));
    outcomes.push(options.links === false ? skipped('links', 'links: false') : await runLinks(checked, options.links ?? {}));
    outcomes.push(options.compatibility ? await runCompatibility(checked, options.compatibility) : skipped('compatibility', 'no clients named: pass compatibility: { clients: [...] }'));
    for (const outcome of outcomes) await attach(outcome.family, checked, outcome);
    const summary = textTable(
      ['family', 'result'],
      outcomes.map((o) => [o.family, o.skipped !== null ? `skipped (${o.skipped.split('. ')[0]})` : o.pass ? 'pass' : `FAIL (${o.failures.length})`]),
    );
    const failing = outcomes.filter((o) => !o.pass);
    const hint = this.utils.matcherHint('toPassEmailChecks', 'message', 'options', { isNot: this.isNot, promise: this.promise });
    const subject = JSON.stringify(checked.subject);
    return {
      pass: failing.length === 0,
      name: 'toPassEmailChecks',
      message: () =>
        failing.length === 0
          ? `${hint}\n\nExpected: ${subject} to fail an email check\nReceived: all pass\n\n${summary}`
          : `${hint}\n\nExpected: ${subject} to pass every email check\nReceived:\n${summary}\n\n${failing.map((o) => `${o.family}:\n${o.failures.map((f) => `  ${f}`).join('\n')}`).join('\n\n')}`,
    };
  },
};
