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

/** Where the scanner is and how long a scan may take. */
export interface SpamScannerConfig {
  /** `spamd://host:port` (SpamAssassin) or `rspamd://host:port` / `http://host:port` (Rspamd's normal worker). */
  url: string;
  /** Longest a scan may take, connecting included, in milliseconds. */
  timeoutMs: number;
}

export { SpamCheckError };

/** A scanner: scores a raw message. */
export interface SpamScanner {
  /** `spamassassin` or `rspamd`. */
  readonly kind: 'spamassassin' | 'rspamd';
  /** The URL it was made from. */
  readonly url: string;
  /** Scores a raw message; rejects with a {@link SpamCheckError}. */
  check(raw: Uint8Array): Promise<SpamCheck>;
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

/** Scans one service runs against its scanner at once. */
export const MAX_SCANS_IN_FLIGHT = 16;

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
  let inFlight = 0;
  return {
    kind,
    url: config.url,
    async check(raw) {
      // A bound no caller can lift: scans beyond it are refused at once rather than queued behind a slow scanner.
      if (inFlight >= MAX_SCANS_IN_FLIGHT) {
        throw new SpamCheckError('busy', `${MAX_SCANS_IN_FLIGHT} spam checks are already running against ${config.url}; try again when one has finished`);
      }
      inFlight++;
      try {
        const started = performance.now();
        const scan = kind === 'spamassassin' ? await spamdCheck(target, raw) : await rspamdCheck(target, raw);
        return toSpamCheck(kind, scan, performance.now() - started);
      } finally {
        inFlight--;
      }
    },
  };
}
