/**
 * Who may open which mailbox: the login is an inbox's address, the password
 * its inbox token or an API key of the inbox's owner (the same rule as the
 * API's: an inbox token sees its inbox alone, an API key its user's inboxes).
 * An unknown address, an expired inbox and a wrong password are one answer.
 * Failed logins slow down: each failure from a client address doubles the
 * wait before the next answer to that address, and a connection is closed
 * after a few.
 *
 * @packageDocumentation
 */
import { constantTimeEqual } from '../../auth/secrets.ts';
import type { InboxRecord, Store } from '../../storage/contract/types.ts';

/** What {@link authenticate} reads. */
export interface AccountDeps {
  store: Pick<Store, 'findActiveInboxByAddress' | 'findApiKey'>;
  now(): number;
  hash(secret: string): string;
}

/**
 * The active inbox that `username` (its address) names, when `password` is
 * its inbox token or an API key of its owner; null otherwise.
 */
export async function authenticate(deps: AccountDeps, username: string, password: string): Promise<InboxRecord | null> {
  const at = username.lastIndexOf('@');
  if (at <= 0 || at === username.length - 1 || password === '') return null;
  const hash = deps.hash(password);
  const inbox = await deps.store.findActiveInboxByAddress(username.slice(0, at).trim(), username.slice(at + 1).trim(), deps.now());
  if (!inbox) return null;
  if (constantTimeEqual(inbox.tokenHash, hash)) return inbox;
  if (!/^tm_[A-Za-z0-9_-]{16,}$/.test(password) || inbox.ownerUserId === null) return null;
  const key = await deps.store.findApiKey(hash);
  return key && key.user.id === inbox.ownerUserId ? inbox : null;
}

/** Client addresses remembered at most (the oldest are forgotten first). */
const MAX_TRACKED_ADDRESSES = 10_000;
/** How long a client address's failures count. */
const FAILURE_WINDOW_MS = 15 * 60_000;
/** The first wait after a failure; it doubles with each further one. */
const FIRST_WAIT_MS = 250;
/** The longest wait. */
const MAX_WAIT_MS = 8000;

/** The failed-login record of the listeners of one service: waits per client address. */
export interface LoginGuard {
  /** How long to wait before answering a login from `address` (0 when it has no recent failure). */
  waitFor(address: string): number;
  /** Records a failed login from `address`. */
  failed(address: string): void;
  /** Forgets the failures of `address` (a good login). */
  succeeded(address: string): void;
}

/** A {@link LoginGuard} with a bounded memory (see the module's comment). */
export function createLoginGuard(now: () => number): LoginGuard {
  const failures = new Map<string, { count: number; last: number }>();
  const current = (address: string) => {
    const entry = failures.get(address);
    if (entry && now() - entry.last > FAILURE_WINDOW_MS) {
      failures.delete(address);
      return undefined;
    }
    return entry;
  };
  return {
    waitFor(address) {
      const entry = current(address);
      return entry ? Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(entry.count - 1, 10)) : 0;
    },
    failed(address) {
      const entry = current(address);
      failures.delete(address);
      failures.set(address, { count: (entry?.count ?? 0) + 1, last: now() });
      if (failures.size > MAX_TRACKED_ADDRESSES) failures.delete(failures.keys().next().value as string);
    },
    succeeded(address) {
      failures.delete(address);
    },
  };
}
