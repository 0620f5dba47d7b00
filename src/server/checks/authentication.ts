/**
 * The authentication check of a stored message: DKIM (every signature), SPF,
 * DMARC and ARC verified by `mailauth` (an optional peer dependency, loaded on
 * first use) against the caller's test DNS only, with reasons that say what
 * to fix.
 *
 * @packageDocumentation
 */
import type { AuthenticationCheck } from '../../wire/authentication-check.ts';
import { readMailauthAnswer } from '../../wire/mailauth-reading.ts';
import type { MailauthAnswer } from '../../wire/mailauth-reading.ts';
import { testResolver } from './test-dns.ts';
import type { DnsLookup } from './test-dns.ts';

/** The command that installs the optional peer dependency the check needs. */
export const MAILAUTH_INSTALL = 'npm install mailauth';

/** Why a check could not run: mailauth is missing (`unavailable`) or it took too long (`timeout`). */
export class AuthenticationCheckError extends Error {
  override readonly name = 'AuthenticationCheckError';
  readonly kind: 'unavailable' | 'timeout';
  constructor(kind: 'unavailable' | 'timeout', message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}

type Authenticate = (input: Buffer, options: Record<string, unknown>) => Promise<MailauthAnswer>;

/** Loads mailauth; each call imports it again (Node caches the module), so the server keeps no state of its own. */
async function loadMailauth(): Promise<Authenticate> {
  try {
    const module = (await import('mailauth')) as unknown as { authenticate?: Authenticate; default?: { authenticate?: Authenticate } };
    const authenticate = module.authenticate ?? module.default?.authenticate;
    if (typeof authenticate !== 'function') throw new Error('mailauth exports no authenticate()');
    return authenticate;
  } catch (error) {
    throw new AuthenticationCheckError(
      'unavailable',
      `This service cannot check sender authentication: it needs the mailauth package, an optional peer dependency of inboxkit. Install it beside inboxkit with \`${MAILAUTH_INSTALL}\` and restart the service (see docs/email-checks.md).`,
      { cause: error },
    );
  }
}

/** What a check is given. */
export interface AuthenticationInput {
  /** The stored raw message. */
  raw: Uint8Array;
  /** The test DNS map (already shape-checked by the wire schema). */
  dns: Readonly<Record<string, unknown>>;
  /** The SMTP session the checks use. */
  session: AuthenticationCheck['session'];
  /** Whether no envelope was recorded (then mailauth may read the session from the topmost `Received`). */
  trustReceived: boolean;
  /** Longest the check may take. */
  timeoutMs: number;
}

/**
 * Checks DKIM, SPF, DMARC and ARC of a raw message against the test DNS only.
 *
 * @throws TestDnsError when a record of the map is not usable.
 * @throws AuthenticationCheckError when mailauth is missing or the check passes `timeoutMs`.
 */
export async function checkAuthentication(input: AuthenticationInput): Promise<AuthenticationCheck> {
  const lookups: DnsLookup[] = [];
  const resolver = testResolver(input.dns, lookups);
  const authenticate = await loadMailauth();
  const { session } = input;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AuthenticationCheckError('timeout', `the check took longer than ${input.timeoutMs} ms`)), input.timeoutMs);
  });
  try {
    const answer = await Promise.race([
      authenticate(Buffer.from(input.raw.buffer, input.raw.byteOffset, input.raw.byteLength), {
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
    return { ...readMailauthAnswer(answer, session), lookups };
  } finally {
    clearTimeout(timer);
  }
}
