/**
 * Sender authentication, offline, in one place for the client's
 * `message.authentication()` and the service's `POST /messages/{id}/authentication`:
 * DKIM (every signature), SPF, DMARC and ARC of a raw message, verified by
 * `mailauth` (an optional peer dependency, loaded on first use) against a
 * test DNS only, within a time bound, read into results whose reasons say
 * what to fix.
 *
 * @packageDocumentation
 */
import { InboxkitError } from '../errors/inboxkit-error.ts';
import type { AuthenticationCheck } from '../wire/authentication-check.ts';
import { boundDkimSignatures, skippedReason } from './dkim-bound.ts';
import { readMailauthAnswer } from './mailauth-reading.ts';
import type { MailauthAnswer } from './mailauth-reading.ts';
import { testDnsResolver } from './test-dns.ts';
import type { DnsLookup, TestDns } from './test-dns.ts';

/** One DKIM signature's outcome. */
export interface DkimSignatureResult {
  /** The signing domain (`d=`). */
  domain: string;
  /** The selector (`s=`); its key is read at `<selector>._domainkey.<domain>`. */
  selector: string;
  /** `pass`, `fail`, `neutral` (e.g. no key, body changed), `policy`, `temperror`, `permerror`, or `skipped`: not verified, past the bound of 10 signatures per message. */
  result: string;
  /** Why it did not pass, and what to do; `null` on a pass. */
  reason: string | null;
  /** Whether `d=` aligns with the From domain (relaxed alignment, as DMARC uses by default). */
  aligned: boolean;
}

/** What `message.authentication()` returns. */
export interface AuthenticationReport {
  /** Every DKIM signature, in header order; one `{ result: 'none' }` entry when the message is not signed. */
  dkim: DkimSignatureResult[];
  /** SPF of the envelope sender (`MAIL FROM`, or the HELO name for the null sender) for the client address. */
  spf: { result: string; domain: string | null; reason: string | null };
  /** DMARC of the From domain. */
  dmarc: { result: string; domain: string | null; policy: string | null; reason: string | null };
  /** ARC chain validation (`none` without ARC headers). */
  arc: { result: string; reason: string | null };
  /** What the checks used as the SMTP session. */
  session: { mailFrom: string; clientAddress: string; helo: string | null };
  /** The `Authentication-Results` header value mailauth made of it. */
  authenticationResults: string;
}

/** The command that installs the optional peer dependency, where inboxkit runs (a test project adds `--save-dev`). */
export const MAILAUTH_INSTALL = 'npm install mailauth';

/** Longest an authentication check may take unless told otherwise, in milliseconds. */
export const AUTHENTICATION_TIMEOUT_MS = 10_000;

/** Why a check could not run: mailauth is missing (`unavailable`), or it took longer than its bound (`timeout`). */
export class AuthenticationCheckError extends InboxkitError {
  override name = 'AuthenticationCheckError';
  /** Which of the two it was. */
  readonly kind: 'unavailable' | 'timeout';
  constructor(kind: 'unavailable' | 'timeout', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

type Authenticate = (input: Buffer, options: Record<string, unknown>) => Promise<MailauthAnswer>;

/** The error of a check that needs mailauth where it is not installed. */
function mailauthMissing(cause: unknown): AuthenticationCheckError {
  return new AuthenticationCheckError(
    'unavailable',
    `authentication: sender authentication needs the mailauth package, an optional peer dependency of inboxkit (about 25 MB). Install it where inboxkit runs with \`${MAILAUTH_INSTALL}\` (\`npm install --save-dev mailauth\` in a test project), and restart the service if one runs the check (see docs/email-checks.md).`,
    { cause },
  );
}

/**
 * Throws the install hint when mailauth cannot be found from here, without
 * loading it (a service checks this before it starts a worker for a check).
 *
 * @throws AuthenticationCheckError of kind `unavailable`.
 */
export function assertMailauthInstalled(): void {
  try {
    import.meta.resolve('mailauth');
  } catch (error) {
    throw mailauthMissing(error);
  }
}

/** Loads mailauth (Node caches the module; nothing is kept here). */
async function loadMailauth(): Promise<Authenticate> {
  try {
    const module = (await import('mailauth')) as unknown as { authenticate?: Authenticate; default?: { authenticate?: Authenticate } };
    const authenticate = module.authenticate ?? module.default?.authenticate;
    if (typeof authenticate !== 'function') throw new Error('mailauth exports no authenticate()');
    return authenticate;
  } catch (error) {
    throw mailauthMissing(error);
  }
}

/** What one authentication run is given. */
export interface AuthenticationInput {
  /** The raw source. */
  raw: Uint8Array;
  /** The test DNS; a name it lacks does not exist. */
  dns: TestDns;
  /** The SMTP session the checks use. */
  session: AuthenticationReport['session'];
  /** Whether no envelope was recorded (then mailauth may read the session from the topmost `Received`). */
  trustReceived: boolean;
  /**
   * Longest the check may take, in milliseconds.
   * @defaultValue {@link AUTHENTICATION_TIMEOUT_MS}
   */
  timeoutMs?: number;
}

/**
 * Checks DKIM, SPF, DMARC and ARC of a raw message against the test DNS only.
 * Only the first DKIM signatures are verified (`dkim-bound.ts`); the rest are
 * reported with the result `skipped` and a reason naming the bound.
 *
 * @throws TestDnsError when a record of the map is not usable.
 * @throws AuthenticationCheckError when mailauth is missing or the check passes its time bound.
 */
export async function runAuthentication(input: AuthenticationInput): Promise<AuthenticationCheck> {
  const lookups: DnsLookup[] = [];
  const resolver = testDnsResolver(input.dns, lookups);
  const authenticate = await loadMailauth();
  const { session } = input;
  const timeoutMs = input.timeoutMs ?? AUTHENTICATION_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AuthenticationCheckError('timeout', `authentication: the check took longer than ${timeoutMs} ms`)), timeoutMs);
  });
  const bounded = boundDkimSignatures(input.raw);
  try {
    const answer = await Promise.race([
      authenticate(Buffer.from(bounded.raw.buffer, bounded.raw.byteOffset, bounded.raw.byteLength), {
        ip: session.clientAddress,
        ...(session.helo !== null ? { helo: session.helo } : {}),
        sender: session.mailFrom,
        trustReceived: input.trustReceived,
        mta: 'inboxkit.test',
        resolver,
        disableBimi: true,
      }),
      late,
    ]);
    const reading = readMailauthAnswer(answer, session);
    const total = bounded.kept + bounded.skipped.length;
    const skipped = bounded.skipped.map((s) => ({ domain: s.domain, selector: s.selector, result: 'skipped', reason: skippedReason(bounded.kept, total), aligned: false }));
    return { ...reading, dkim: [...reading.dkim, ...skipped], lookups };
  } finally {
    clearTimeout(timer);
  }
}

/** The SMTP session overrides of an authentication check (each defaults to what the service recorded). */
export interface SessionOverrides {
  /** The test DNS to read records from; a name it lacks does not exist. */
  dns?: TestDns;
  /** The sending client's address SPF is checked for. */
  clientAddress?: string;
  /** The HELO name. */
  helo?: string;
  /** The envelope sender. */
  mailFrom?: string;
}

/** The envelope a message was recorded with, as the session is read from it. */
export interface RecordedEnvelope {
  mailFrom: string;
  clientAddress: string | null;
  helo: string | null;
}

/**
 * The SMTP session a check uses: the overrides, else the envelope recorded at
 * intake, else 127.0.0.1 and the null sender (then mailauth reads the
 * topmost `Received`).
 */
export function authenticationSession(envelope: RecordedEnvelope | null, overrides: SessionOverrides = {}): AuthenticationReport['session'] {
  return {
    mailFrom: overrides.mailFrom ?? envelope?.mailFrom ?? '',
    clientAddress: overrides.clientAddress ?? envelope?.clientAddress ?? '127.0.0.1',
    helo: overrides.helo ?? envelope?.helo ?? null,
  };
}

/**
 * A report without the test DNS's lookups, as `message.authentication()` gives it.
 */
export function withoutLookups(check: AuthenticationCheck): AuthenticationReport {
  const { lookups: _lookups, ...report } = check;
  return report;
}
