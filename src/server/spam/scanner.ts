/**
 * A spam scanner the service asks on demand: SpamAssassin's spamd (its own TCP
 * protocol) or Rspamd (its HTTP API), chosen by the URL's scheme. Every call is
 * bounded in time and in the size of the answer read.
 *
 * @packageDocumentation
 */
import type { SpamCheck } from '../../wire/spam-check.ts';
import { SpamCheckError } from './errors.ts';
import type { RawScan } from './errors.ts';
import { isLocalOnlyRule } from './local-only.ts';
import { spamdCheck } from './spamd.ts';
import { rspamdCheck } from './rspamd.ts';
import { createFairQueue } from './fair-queue.ts';

/** Where the scanner is and how long a scan may take. */
export interface SpamScannerConfig {
  /** `spamd://host:port` (SpamAssassin) or `rspamd://host:port` / `http://host:port` (Rspamd's normal worker). */
  url: string;
  /** Longest a scan may take, connecting included, in milliseconds (counted from when it is sent, not while it waits its turn). */
  timeoutMs: number;
  /**
   * Scans sent to the scanner at once; the others wait their turn in a fair
   * queue (`fair-queue.ts`). spamd serves 5 at once by default (`--max-children`).
   * @defaultValue 5
   */
  maxInFlight?: number;
}

export { SpamCheckError };

/** A scanner: scores a raw message. */
export interface SpamScanner {
  /** `spamassassin` or `rspamd`. */
  readonly kind: 'spamassassin' | 'rspamd';
  /** The URL it was made from. */
  readonly url: string;
  /**
   * Scores a raw message, when the turn of `caller` comes (a key naming who
   * asks: checks are sent round robin between callers); rejects with a {@link SpamCheckError}.
   */
  check(raw: Uint8Array, caller?: string): Promise<SpamCheck>;
}

/** The scanner kind of a URL, or an error message saying what URLs are understood. */
export function scannerKind(url: string): 'spamassassin' | 'rspamd' | string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL`;
  }
  if (!parsed.hostname || !parsed.port) return `${JSON.stringify(url)} needs a host and a port`;
  if (parsed.protocol === 'spamd:') return 'spamassassin';
  if (parsed.protocol === 'rspamd:' || parsed.protocol === 'http:') return 'rspamd';
  return `${JSON.stringify(url)} has the scheme ${parsed.protocol} — use spamd://host:port for SpamAssassin's spamd or rspamd://host:port (http://) for Rspamd`;
}

/** Scans one service holds at once, sent to the scanner or waiting their turn. */
export const MAX_SCANS_IN_FLIGHT = 16;

/** Scans sent to the scanner at once by default: spamd's default number of children. */
export const DEFAULT_SCANNER_CONCURRENCY = 5;

const round = (n: number) => Math.round(n * 1000) / 1000;

/** A scan turned into the API's answer: local-only rules marked and left out of `score`. */
export function toSpamCheck(kind: 'spamassassin' | 'rspamd', scan: RawScan, durationMs: number): SpamCheck {
  const rules = scan.rules.map((r) => ({ ...r, localOnly: isLocalOnlyRule(kind, r.name) })).sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  const score = round(rules.filter((r) => !r.localOnly).reduce((sum, r) => sum + r.score, 0));
  return { scanner: kind, score, threshold: scan.threshold, spam: score >= scan.threshold, scannerScore: round(scan.score), rules, durationMs: Math.round(durationMs) };
}

/**
 * A scanner for a URL (checked by `resolveConfig` first).
 *
 * @example
 * ```ts
 * const scanner = createSpamScanner({ url: 'spamd://127.0.0.1:783', timeoutMs: 10_000 });
 * const { score, rules } = await scanner.check(raw);
 * ```
 */
export function createSpamScanner(config: SpamScannerConfig): SpamScanner {
  const kind = scannerKind(config.url);
  if (kind !== 'spamassassin' && kind !== 'rspamd') throw new SpamCheckError('protocol', kind);
  const url = new URL(config.url);
  const target = { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port), timeoutMs: config.timeoutMs };
  // A bound no caller can lift: scans beyond it are refused at once rather than queued behind a slow scanner.
  const queue = createFairQueue({
    maxInFlight: config.maxInFlight ?? DEFAULT_SCANNER_CONCURRENCY,
    maxQueued: MAX_SCANS_IN_FLIGHT,
    onFull: () => new SpamCheckError('busy', `${MAX_SCANS_IN_FLIGHT} spam checks are already running or waiting for ${config.url}; try again when one has finished`),
  });
  const scan = async (raw: Uint8Array): Promise<SpamCheck> => {
    const started = performance.now();
    const found = kind === 'spamassassin' ? await spamdCheck(target, raw) : await rspamdCheck(target, raw);
    return toSpamCheck(kind, found, performance.now() - started);
  };
  return {
    kind,
    url: config.url,
    check: (raw, caller = '') => queue.run(caller, () => scan(raw)),
  };
}
