/**
 * Sender authentication of a received message, offline: DKIM (every
 * signature), SPF, DMARC alignment and ARC, verified by `mailauth` (loaded on
 * first use: an optional peer dependency) on the message's raw source, against a
 * test DNS the caller supplies. Each result that is not a pass carries a reason
 * that says what to fix.
 *
 * @packageDocumentation
 */
import { InboxkitError } from '../core/errors.ts';
import { testDnsResolver } from './test-dns.ts';
import { readMailauthAnswer } from '../../wire/mailauth-reading.ts';
import type { MailauthAnswer } from '../../wire/mailauth-reading.ts';
import type { DnsResolver, TestDns } from './test-dns.ts';
import type { RequestOptions } from '../core/types.ts';

/** One DKIM signature's outcome. */
export interface DkimSignatureResult {
  /** The signing domain (`d=`). */
  domain: string;
  /** The selector (`s=`); its key is read at `<selector>._domainkey.<domain>`. */
  selector: string;
  /** `pass`, `fail`, `neutral` (e.g. no key, body changed), `policy`, `temperror`, `permerror`. */
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

/** Options of `message.authentication()`. */
export interface AuthenticationOptions extends RequestOptions {
  /** The test DNS to read records from; a name it lacks does not exist. See {@link TestDns}. */
  dns?: TestDns;
  /**
   * The sending client's address SPF is checked for, instead of the address the
   * service recorded (`message.envelope.clientAddress`, 127.0.0.1 for a local app).
   */
  clientAddress?: string;
  /** The HELO name, instead of the recorded one. */
  helo?: string;
  /** The envelope sender, instead of the recorded `MAIL FROM`. */
  mailFrom?: string;
}

/** The message as authentication sees it. */
export interface AuthenticatableMessage {
  /** Envelope the service recorded, or null. */
  readonly envelope: { mailFrom: string; clientAddress: string | null; helo: string | null } | null;
  /** The raw source. */
  raw(options?: RequestOptions): Promise<Uint8Array>;
}

type Authenticate = (input: Buffer, options: Record<string, unknown>) => Promise<MailauthAnswer>;

/** The command that installs the optional peer dependency. */
export const MAILAUTH_INSTALL = 'npm install --save-dev mailauth';

async function loadMailauth(): Promise<Authenticate> {
  try {
    const module = (await import('mailauth')) as unknown as { authenticate: Authenticate; default?: { authenticate: Authenticate } };
    return module.authenticate ?? module.default?.authenticate;
  } catch (error) {
    throw new InboxkitError(
      `authentication: sender authentication needs the mailauth package, which is an optional peer dependency of inboxkit (about 25 MB); install it with \`${MAILAUTH_INSTALL}\`.`,
      { cause: error },
    );
  }
}

/**
 * Checks DKIM, SPF, DMARC and ARC of a raw message against a test DNS, with
 * mailauth. The SMTP session (client address, HELO, MAIL FROM) is the one the
 * service recorded, unless the options override it; with no envelope recorded
 * it is read from the topmost `Received` header.
 *
 * @throws InboxkitError when mailauth is not installed or the test DNS is malformed.
 */
export async function authenticateMessage(message: AuthenticatableMessage, options: AuthenticationOptions = {}): Promise<AuthenticationReport> {
  const resolver: DnsResolver = testDnsResolver(options.dns ?? {});
  const authenticate = await loadMailauth();
  const envelope = message.envelope;
  const session = {
    mailFrom: options.mailFrom ?? envelope?.mailFrom ?? '',
    clientAddress: options.clientAddress ?? envelope?.clientAddress ?? '127.0.0.1',
    helo: options.helo ?? envelope?.helo ?? null,
  };
  const raw = Buffer.from(await message.raw(options));
  const result = await authenticate(raw, {
    ip: session.clientAddress,
    ...(session.helo !== null ? { helo: session.helo } : {}),
    sender: session.mailFrom,
    trustReceived: envelope === null,
    mta: 'inboxkit.test',
    resolver,
    disableBimi: true,
  });
  return readMailauthAnswer(result, session);
}
