/**
 * What the scanners share: the error of a failed scan, a scanner's raw
 * answer, and where a scanner listens.
 *
 * @packageDocumentation
 */
import type { SpamRule } from '../../wire/spam-check.ts';

/** Why a scan failed: the scanner could not be reached, did not answer in time, answered something unreadable, or too many scans were running. */
export class SpamCheckError extends Error {
  override readonly name = 'SpamCheckError';
  readonly kind: 'unreachable' | 'timeout' | 'protocol' | 'busy';
  constructor(kind: 'unreachable' | 'timeout' | 'protocol' | 'busy', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

/** A scanner's answer before local-only rules are set apart. */
export interface RawScan {
  /** The scanner's own total. */
  score: number;
  /** Its spam threshold. */
  threshold: number;
  /** Matched rules. */
  rules: Array<Omit<SpamRule, 'localOnly'>>;
}

/** Where a scanner listens and how long a scan may take. */
export interface ScannerTarget {
  host: string;
  port: number;
  timeoutMs: number;
}
