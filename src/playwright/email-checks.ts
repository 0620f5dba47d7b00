/**
 * The email checks as the matchers run them: one runner per family
 * (authentication, content, spam), each returning whether it passed, a
 * readable table for the report and the lines of a failure message.
 *
 * @packageDocumentation
 */
import { CONTENT_RULES, InboxkitError, SpamCheckUnavailableError } from '../client/index.ts';
import type { AuthenticationOptions, AuthenticationReport, ContentCheckOptions, ContentFinding, SpamCheck } from '../client/index.ts';
import type { TestMessage } from './test-message.ts';

/** The outcome of one family of checks. */
export interface CheckOutcome {
  /** The family: `authentication`, `content`, `spam`, `links`, `compatibility`. */
  family: string;
  /** Whether it passed (a skipped family passes). */
  pass: boolean;
  /** Whether it was skipped, and why (then `pass` is true). */
  skipped: string | null;
  /** A plain-text table of the whole result, for the report. */
  table: string;
  /** What failed, one line each (empty when it passed). */
  failures: string[];
}

/** A plain-text table: columns padded to their widest cell, the last one left as it is. */
export function textTable(columns: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = columns.map((c, i) => Math.min(60, Math.max(c.length, ...rows.map((r) => (r[i] ?? '').length))));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((w, i) => '-'.repeat(i === widths.length - 1 ? Math.max(columns[i]?.length ?? 0, 4) : w))), ...rows.map(line)].join('\n');
}

/** Expected results of `toBeAuthenticated`: a result, a list of acceptable ones, or `false` not to check that part. */
export type ExpectedAuthResult = string | readonly string[] | false;

/** Options of `toBeAuthenticated` (and the `authentication` family of `toPassEmailChecks`). */
export interface AuthenticationExpectations extends AuthenticationOptions {
  /**
   * What every DKIM signature must give.
   * @defaultValue 'pass'
   */
  dkim?: ExpectedAuthResult;
  /**
   * What SPF must give.
   * @defaultValue 'pass'
   */
  spf?: ExpectedAuthResult;
  /**
   * What DMARC must give.
   * @defaultValue 'pass'
   */
  dmarc?: ExpectedAuthResult;
}

function accepts(expected: ExpectedAuthResult | undefined, result: string): boolean {
  if (expected === false) return true;
  const list = expected === undefined ? ['pass'] : typeof expected === 'string' ? [expected] : expected;
  return list.includes(result);
}

function describeExpected(expected: ExpectedAuthResult | undefined): string {
  return expected === undefined ? 'pass' : typeof expected === 'string' ? expected : expected === false ? 'anything' : expected.join(' or ');
}

/** Runs sender authentication and compares it with the expectations. */
export async function runAuthentication(message: TestMessage, options: AuthenticationExpectations = {}): Promise<CheckOutcome & { report: AuthenticationReport }> {
  const { dkim: wantDkim, spf: wantSpf, dmarc: wantDmarc, ...call } = options;
  const report = await message.authentication(call);
  const failures: string[] = [];
  for (const sig of report.dkim) {
    if (!accepts(wantDkim, sig.result)) failures.push(`DKIM ${sig.domain ? `d=${sig.domain} s=${sig.selector}` : ''}: ${sig.result}, expected ${describeExpected(wantDkim)} — ${sig.reason ?? 'no reason given'}`.replace('DKIM :', 'DKIM:'));
  }
  if (!accepts(wantSpf, report.spf.result)) failures.push(`SPF ${report.spf.domain ?? ''}: ${report.spf.result}, expected ${describeExpected(wantSpf)} — ${report.spf.reason ?? 'no reason given'}`);
  if (!accepts(wantDmarc, report.dmarc.result)) failures.push(`DMARC ${report.dmarc.domain ?? ''}: ${report.dmarc.result}, expected ${describeExpected(wantDmarc)} — ${report.dmarc.reason ?? 'no reason given'}`);
  const rows = [
    ...report.dkim.map((d) => ['DKIM', d.result, d.domain ? `d=${d.domain} s=${d.selector}${d.aligned ? ' (aligned)' : ''}` : '(not signed)', d.reason ?? '']),
    ['SPF', report.spf.result, report.spf.domain ?? '', report.spf.reason ?? ''],
    ['DMARC', report.dmarc.result, `${report.dmarc.domain ?? ''}${report.dmarc.policy ? ` p=${report.dmarc.policy}` : ''}`, report.dmarc.reason ?? ''],
    ['ARC', report.arc.result, '', report.arc.reason ?? ''],
  ];
  const session = `session: MAIL FROM <${report.session.mailFrom}> from ${report.session.clientAddress}${report.session.helo ? ` (HELO ${report.session.helo})` : ''}`;
  return { family: 'authentication', pass: failures.length === 0, skipped: null, failures, report, table: `${textTable(['check', 'result', 'identity', 'reason'], rows)}\n\n${session}` };
}

/** Options of `toPassContentChecks` (and the `content` family of `toPassEmailChecks`). */
export interface ContentExpectations extends ContentCheckOptions {
  /**
   * Rule ids to accept anyway (see `CONTENT_RULES`); an unknown id is an error.
   * @defaultValue `[]`
   */
  ignore?: readonly string[];
  /**
   * The least severity that fails: `warning` (every finding) or `error`.
   * @defaultValue 'warning'
   */
  failOn?: 'warning' | 'error';
}

/** Checks `ignore` before anything runs: a rule id that does not exist is a typo to report. */
export function checkIgnoredRules(ignore: readonly string[] | undefined): Set<string> {
  const unknown = (ignore ?? []).filter((id) => !(id in CONTENT_RULES));
  if (unknown.length > 0) {
    throw new InboxkitError(`toPassContentChecks: unknown rule id${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => JSON.stringify(u)).join(', ')} in ignore; the rules are ${Object.keys(CONTENT_RULES).join(', ')}.`);
  }
  return new Set(ignore);
}

/** Runs the content rules and keeps the findings that fail. */
export async function runContent(message: TestMessage, options: ContentExpectations = {}): Promise<CheckOutcome & { findings: ContentFinding[] }> {
  const ignored = checkIgnoredRules(options.ignore);
  const findings = await message.contentChecks(options.bulk === undefined ? {} : { bulk: options.bulk });
  const failing = findings.filter((f) => !ignored.has(f.rule) && (options.failOn !== 'error' || f.severity === 'error'));
  const rows = findings.map((f) => [f.rule, ignored.has(f.rule) ? `${f.severity} (ignored)` : f.severity, f.where, f.message]);
  const table = findings.length === 0 ? `No findings: all ${Object.keys(CONTENT_RULES).length} content rules pass.` : textTable(['rule', 'severity', 'where', 'finding and fix'], rows);
  return { family: 'content', pass: failing.length === 0, skipped: null, findings, table, failures: failing.map((f) => `${f.rule} (${f.severity}) at ${f.where}: ${f.message}`) };
}

/** Options of `toPassSpamCheck` (and the `spam` family of `toPassEmailChecks`). */
export interface SpamExpectations {
  /**
   * The highest score that passes.
   * @defaultValue just under the scanner's threshold (SpamAssassin: 5)
   */
  maxScore?: number;
}

function spamTable(result: SpamCheck): string {
  const rows = result.rules.map((r) => [r.score.toFixed(1), r.name, r.localOnly ? 'local-only, not counted' : '', r.description]);
  const head = `${result.scanner}: score ${result.score} (threshold ${result.threshold}; the scanner's own total ${result.scannerScore} with local-only rules), ${result.durationMs} ms`;
  return `${head}\n\n${textTable(['pts', 'rule', 'note', 'description'], rows)}`;
}

/** Asks the service's scanner and compares the score with the bound. */
export async function runSpam(message: TestMessage, options: SpamExpectations = {}): Promise<CheckOutcome & { result: SpamCheck }> {
  const result = await message.spamCheck();
  const pass = options.maxScore === undefined ? result.score < result.threshold : result.score <= options.maxScore;
  const bound = options.maxScore === undefined ? `below the threshold ${result.threshold}` : `at most ${options.maxScore}`;
  const counted = result.rules.filter((r) => !r.localOnly && r.score > 0);
  const failures = pass ? [] : [`spam score ${result.score}, expected ${bound}; rules that count: ${counted.map((r) => `${r.name} ${r.score} (${r.description})`).join(', ') || 'none'}`];
  return { family: 'spam', pass, skipped: null, result, table: spamTable(result), failures };
}

/** Whether an error means "no scanner here" (skip the family in `toPassEmailChecks`) rather than a failure. */
export function noScanner(error: unknown): string | null {
  return error instanceof SpamCheckUnavailableError && error.reason !== 'failed' ? error.message : null;
}
