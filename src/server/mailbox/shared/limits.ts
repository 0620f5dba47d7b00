/**
 * What the IMAP and POP3 sessions of one service share: the store, the live
 * event bus, the clock, the failed-login record, the STARTTLS context and the
 * bounds every session keeps.
 *
 * @packageDocumentation
 */
import type { SecureContext } from 'node:tls';
import type { Logger } from 'pino';
import type { EventBus } from '../../events/types.ts';
import type { Store } from '../../storage/contract/types.ts';
import type { LoginGuard } from './accounts.ts';

/** The bounds of one mailbox session (docs/security.md lists them with their flags). */
export interface SessionLimits {
  /** Silence allowed after login, in milliseconds (an IDLE included). */
  idleTimeoutMs: number;
  /** Silence allowed before login, in milliseconds. */
  loginTimeoutMs: number;
  /** Largest literal (IMAP), and the most literal bytes of one command. */
  maxLiteralBytes: number;
  /** Commands per minute per connection; null: no cap. */
  commandsPerMinute: number | null;
  /** Failed logins after which the connection is closed. */
  maxLoginFailures: number;
  /** Most messages one session lists (the oldest beyond are not shown). */
  maxMessages: number;
}

/** What a session is given. */
export interface SessionDeps {
  store: Store;
  bus: EventBus;
  now(): number;
  hash(secret: string): string;
  logger: Logger;
  guard: LoginGuard;
  /** The STARTTLS/STLS context, or null when TLS is not offered. */
  tls: SecureContext | null;
  limits: SessionLimits;
}

/** A per-connection fixed-window command counter: whether one more command fits in this minute. */
export function commandMeter(perMinute: number | null, now: () => number): () => boolean {
  let windowStart = now();
  let count = 0;
  return () => {
    if (perMinute === null) return true;
    if (now() - windowStart >= 60_000) {
      windowStart = now();
      count = 0;
    }
    return ++count <= perMinute;
  };
}

/** Resolves after `ms` (the failed-login wait). */
export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
