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
import { dnsName, testDnsResolver } from './test-dns.ts';
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

interface MailauthStatus {
  result?: string;
  comment?: string | false;
  header?: Record<string, string>;
  aligned?: string | false;
}
interface MailauthResult {
  dkim?: { headerFrom?: string[]; results?: Array<{ signingDomain?: string; selector?: string; status?: MailauthStatus; info?: string }> };
  spf?: { domain?: string; status?: MailauthStatus } | false;
  dmarc?: { status?: MailauthStatus; domain?: string; policy?: string; p?: string; alignment?: { spf?: { result?: string | false }; dkim?: { result?: string | false } } } | false;
  arc?: { status?: MailauthStatus } | false;
  headers?: string;
}
type Authenticate = (input: Buffer, options: Record<string, unknown>) => Promise<MailauthResult>;

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

function keyName(selector: string, domain: string): string {
  return `${selector}._domainkey.${domain}`;
}

/** A DKIM result's reason, in words that say what to fix. */
function dkimReason(comment: string, selector: string, domain: string): string {
  const at = keyName(selector, domain);
  if (comment === 'body hash did not verify') return 'body hash did not verify: the body was changed after signing (sign the final body; a relay or template step must not rewrite it)';
  if (comment === 'no key') return `no key at ${at} in the test DNS: add { '${at}': 'v=DKIM1; k=rsa; p=<base64 public key>' } to dns`;
  if (comment === 'bad signature') return `bad signature: the key at ${at} does not verify the signed headers (a signed header was changed after signing, or the key is not the public half of the signing key)`;
  if (comment === 'message not signed') return 'the message has no DKIM-Signature header: sign it (nodemailer: the dkim transport option)';
  if (/^invalid public key|unknown key|key not for email|inappropriate hash/.test(comment)) return `${comment}: the record at ${at} in the test DNS is not a usable DKIM key`;
  return comment;
}

function dkimOf(result: MailauthResult, headerFrom: string | null): DkimSignatureResult[] {
  const rows = result.dkim?.results ?? [];
  if (rows.length === 0) return [{ domain: '', selector: '', result: 'none', reason: dkimReason('message not signed', '', ''), aligned: false }];
  return rows.map((row) => {
    const domain = row.signingDomain ?? row.status?.header?.d ?? '';
    const selector = row.selector ?? row.status?.header?.s ?? '';
    const outcome = row.status?.result ?? 'none';
    const comment = typeof row.status?.comment === 'string' ? row.status.comment : '';
    const aligned = Boolean(row.status?.aligned);
    let reason: string | null = outcome === 'pass' ? null : dkimReason(comment || (outcome === 'none' ? 'message not signed' : outcome), selector, domain);
    if (outcome === 'pass' && !aligned && headerFrom) reason = `passes, but From domain ${headerFrom} is not aligned with d=${domain}, so DMARC cannot use it`;
    return { domain, selector, result: outcome, reason, aligned };
  });
}

function spfOf(result: MailauthResult, session: AuthenticationReport['session']): AuthenticationReport['spf'] {
  const spf = result.spf || undefined;
  const outcome = spf?.status?.result ?? 'none';
  const domain = spf?.domain ?? null;
  const comment = typeof spf?.status?.comment === 'string' ? spf.status.comment : '';
  let reason: string | null = null;
  if (outcome === 'none') reason = `no SPF record for ${domain ?? 'the envelope sender'} in the test DNS: add { '${domain ?? '<domain>'}': 'v=spf1 ip4:${session.clientAddress} -all' }`;
  else if (outcome === 'fail' || outcome === 'softfail') reason = `${session.clientAddress} is not permitted by the SPF record of ${domain ?? '?'} (${comment || outcome}): add it to the record (ip4:/ip6:/a/mx), or send from a permitted address`;
  else if (outcome !== 'pass') reason = comment || `SPF ${outcome} for ${domain ?? '?'}`;
  return { result: outcome, domain, reason };
}

function dmarcOf(result: MailauthResult, dkim: DkimSignatureResult[], spf: AuthenticationReport['spf']): AuthenticationReport['dmarc'] {
  const dmarc = result.dmarc || undefined;
  const outcome = dmarc?.status?.result ?? 'none';
  const domain = dmarc?.domain ?? dmarc?.status?.header?.from ?? result.dkim?.headerFrom?.[0]?.split('@').pop() ?? null;
  const policy = dmarc?.policy ?? dmarc?.p ?? null;
  let reason: string | null = null;
  if (outcome === 'none') reason = `no DMARC record at _dmarc.${domain ?? '<From domain>'} in the test DNS: add { '_dmarc.${domain ?? '<domain>'}': 'v=DMARC1; p=reject' }`;
  else if (outcome !== 'pass') {
    const passing = dkim.filter((d) => d.result === 'pass');
    const parts: string[] = [];
    if (passing.length === 0) parts.push('no DKIM signature passes');
    else for (const d of passing.filter((p) => !p.aligned)) parts.push(`From domain ${domain} not aligned with d=${d.domain}`);
    if (spf.result !== 'pass') parts.push(`SPF is ${spf.result}`);
    else if (spf.domain && dnsName(spf.domain) !== dnsName(domain ?? '') && !dnsName(spf.domain).endsWith(`.${dnsName(domain ?? '')}`)) parts.push(`From domain ${domain} not aligned with the SPF domain ${spf.domain}`);
    reason = `DMARC ${outcome} for ${domain}: ${parts.join('; ') || 'no aligned pass'}. Sign with d=${domain} (or a subdomain), or send MAIL FROM an address of ${domain} that SPF permits`;
  }
  return { result: outcome, domain, policy, reason };
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
  const headerFrom = result.dkim?.headerFrom?.[0]?.split('@').pop() ?? null;
  const dkim = dkimOf(result, headerFrom);
  const spf = spfOf(result, session);
  const arc = result.arc || undefined;
  return {
    dkim,
    spf,
    dmarc: dmarcOf(result, dkim, spf),
    arc: { result: arc?.status?.result ?? 'none', reason: typeof arc?.status?.comment === 'string' ? arc.status.comment : null },
    session,
    authenticationResults: (result.headers ?? '').replace(/^Authentication-Results:\s*/im, '').trim(),
  };
}
