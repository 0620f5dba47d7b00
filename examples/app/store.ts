/**
 * The example app's in-memory state (users, link tokens, sign-in codes, sessions,
 * newsletter subscribers). One store per app instance; nothing is shared.
 */
import { randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

/** An account. Passwordless accounts have no password hash. */
export interface User {
  /** Normalised (lower-case) email address. */
  email: string;
  /** Whether the address was proven by a link or a code. */
  confirmed: boolean;
  /** `salt:hash` (hex, scrypt), or undefined for passwordless accounts. */
  passwordHash?: string;
}

/** Why a link token was issued. */
export type TokenKind = 'confirm' | 'reset';

/** Result of checking a link token. */
export type TokenCheck = { ok: true; email: string } | { ok: false; reason: 'invalid' | 'expired' };

/** Result of checking a sign-in code. */
export type CodeCheck = { ok: true } | { ok: false; reason: 'none' | 'expired' | 'wrong' | 'locked' };

interface LinkToken {
  kind: TokenKind;
  email: string;
  expiresAt: number;
}

interface PendingCode {
  code: string;
  expiresAt: number;
  attemptsLeft: number;
}

/** The app's state and the rules around it. */
export interface Store {
  /** Finds a user by (any-case) email. */
  user(email: string): User | undefined;
  /** Creates or updates a user. */
  saveUser(user: User): void;
  /** Hashes a password with a fresh salt. */
  hashPassword(password: string): Promise<string>;
  /** Checks a password against a user's hash. */
  verifyPassword(user: User, password: string): Promise<boolean>;
  /**
   * Issues a link token. Tokens are 36 base64 characters ending in `=`, so they
   * always need URL encoding.
   */
  issueToken(kind: TokenKind, email: string, ttlMs: number): string;
  /** Checks a token without using it up. */
  checkToken(kind: TokenKind, token: string, email: string): TokenCheck;
  /** Uses up every token of `kind` for `email`. */
  consumeTokens(kind: TokenKind, email: string): void;
  /** Issues a fresh 6-digit code for `email`, replacing any earlier one. */
  issueCode(email: string, ttlMs: number): string;
  /** Checks (and on success uses up) the code for `email`. */
  checkCode(email: string, code: string): CodeCheck;
  /** Starts a session; returns its id. */
  startSession(email: string): string;
  /** The email signed in with `sessionId`, if any. */
  sessionEmail(sessionId: string | undefined): string | undefined;
  /** Ends one session. */
  endSession(sessionId: string | undefined): void;
  /** Ends every session of `email`. */
  endSessionsOf(email: string): void;
  /** Subscribes `email`; returns its unsubscribe token. */
  subscribe(email: string): string;
  /** Unsubscribes if the token matches (again, if already unsubscribed); returns whether the token matched. */
  unsubscribe(email: string, token: string): boolean;
  /** Whether `email` is subscribed to the newsletter. */
  isSubscribed(email: string): boolean;
  /** Next invoice number (1001, 1002, …). */
  nextInvoiceNumber(): number;
}

/** Lower-cases and trims an email address. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Creates an empty store.
 *
 * @param now - the clock, injectable so tests can expire links without waiting
 */
export function createStore(now: () => number): Store {
  const users = new Map<string, User>();
  const tokens = new Map<string, LinkToken>();
  const codes = new Map<string, PendingCode>();
  const sessions = new Map<string, string>();
  const subscribers = new Map<string, { token: string; active: boolean }>();
  let lastInvoice = 1000;

  return {
    user: (email) => users.get(normaliseEmail(email)),
    saveUser: (user) => void users.set(normaliseEmail(user.email), { ...user, email: normaliseEmail(user.email) }),

    async hashPassword(password) {
      const salt = randomBytes(16);
      const hash = await scryptAsync(password, salt, 32);
      return `${salt.toString('hex')}:${hash.toString('hex')}`;
    },
    async verifyPassword(user, password) {
      const [salt, hash] = (user.passwordHash ?? '').split(':');
      if (!salt || !hash) return false;
      const actual = await scryptAsync(password, Buffer.from(salt, 'hex'), 32);
      return safeEqual(actual.toString('hex'), hash);
    },

    issueToken(kind, email, ttlMs) {
      // 26 random bytes encode to 35 base64 characters plus one `=` of padding.
      const token = randomBytes(26).toString('base64');
      tokens.set(token, { kind, email: normaliseEmail(email), expiresAt: now() + ttlMs });
      return token;
    },
    checkToken(kind, token, email) {
      const found = tokens.get(token);
      if (!found || found.kind !== kind || found.email !== normaliseEmail(email)) return { ok: false, reason: 'invalid' };
      if (now() >= found.expiresAt) return { ok: false, reason: 'expired' };
      return { ok: true, email: found.email };
    },
    consumeTokens(kind, email) {
      for (const [token, found] of tokens) {
        if (found.kind === kind && found.email === normaliseEmail(email)) tokens.delete(token);
      }
    },

    issueCode(email, ttlMs) {
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      codes.set(normaliseEmail(email), { code, expiresAt: now() + ttlMs, attemptsLeft: 5 });
      return code;
    },
    checkCode(email, code) {
      const key = normaliseEmail(email);
      const pending = codes.get(key);
      if (!pending) return { ok: false, reason: 'none' };
      if (now() >= pending.expiresAt) {
        codes.delete(key);
        return { ok: false, reason: 'expired' };
      }
      if (!safeEqual(pending.code, code.replace(/\s+/g, ''))) {
        pending.attemptsLeft -= 1;
        if (pending.attemptsLeft <= 0) {
          codes.delete(key);
          return { ok: false, reason: 'locked' };
        }
        return { ok: false, reason: 'wrong' };
      }
      codes.delete(key);
      return { ok: true };
    },

    startSession(email) {
      const id = randomBytes(18).toString('base64url');
      sessions.set(id, normaliseEmail(email));
      return id;
    },
    sessionEmail: (id) => (id === undefined ? undefined : sessions.get(id)),
    endSession: (id) => void (id !== undefined && sessions.delete(id)),
    endSessionsOf(email) {
      for (const [id, owner] of sessions) if (owner === normaliseEmail(email)) sessions.delete(id);
    },

    subscribe(email) {
      const key = normaliseEmail(email);
      const token = subscribers.get(key)?.token ?? randomBytes(12).toString('base64url');
      subscribers.set(key, { token, active: true });
      return token;
    },
    unsubscribe(email, token) {
      const key = normaliseEmail(email);
      const found = subscribers.get(key);
      if (found === undefined || !safeEqual(found.token, token)) return false;
      found.active = false;
      return true;
    },
    isSubscribed: (email) => subscribers.get(normaliseEmail(email))?.active === true,

    nextInvoiceNumber: () => ++lastInvoice,
  };
}
