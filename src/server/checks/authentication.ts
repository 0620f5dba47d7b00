/**
 * The authentication check of a stored message: DKIM (every signature), SPF,
 * DMARC and ARC verified by `mailauth` (an optional peer dependency, loaded on
 * first use) against the caller's test DNS only, with reasons that say what
 * to fix.
 *
 * @packageDocumentation
 */
import type { AuthenticationCheck } from '../../wire/authentication-check.ts';
import { normalName, testResolver } from './test-dns.ts';
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

interface Status {
  result?: string;
  comment?: string | false;
  header?: Record<string, string>;
  aligned?: string | false;
}
interface MailauthAnswer {
  dkim?: { headerFrom?: string[]; results?: Array<{ signingDomain?: string; selector?: string; status?: Status }> };
  spf?: { domain?: string; status?: Status } | false;
  dmarc?: { status?: Status; domain?: string; policy?: string; p?: string } | false;
  arc?: { status?: Status } | false;
  headers?: string;
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

type Report = Omit<AuthenticationCheck, 'lookups'>;

function keyAt(selector: string, domain: string): string {
  return `${selector}._domainkey.${domain}`;
}

/** A DKIM result's reason in the client's words. */
function dkimReason(comment: string, selector: string, domain: string): string {
  const at = keyAt(selector, domain);
  if (comment === 'body hash did not verify') return 'body hash did not verify: the body was changed after signing (sign the final body; a relay or template step must not rewrite it)';
  if (comment === 'no key') return `no key at ${at} in the test DNS: add { '${at}': 'v=DKIM1; k=rsa; p=<base64 public key>' } to dns`;
  if (comment === 'bad signature') return `bad signature: the key at ${at} does not verify the signed headers (a signed header was changed after signing, or the key is not the public half of the signing key)`;
  if (comment === 'message not signed') return 'the message has no DKIM-Signature header: sign it (nodemailer: the dkim transport option)';
  if (/^invalid public key|unknown key|key not for email|inappropriate hash/.test(comment)) return `${comment}: the record at ${at} in the test DNS is not a usable DKIM key`;
  return comment;
}

function dkimOf(answer: MailauthAnswer, fromDomain: string | null): Report['dkim'] {
  const rows = answer.dkim?.results ?? [];
  if (rows.length === 0) return [{ domain: '', selector: '', result: 'none', reason: dkimReason('message not signed', '', ''), aligned: false }];
  return rows.map((row) => {
    const domain = row.signingDomain ?? row.status?.header?.d ?? '';
    const selector = row.selector ?? row.status?.header?.s ?? '';
    const result = row.status?.result ?? 'none';
    const comment = typeof row.status?.comment === 'string' ? row.status.comment : '';
    const aligned = Boolean(row.status?.aligned);
    let reason: string | null = result === 'pass' ? null : dkimReason(comment || (result === 'none' ? 'message not signed' : result), selector, domain);
    if (result === 'pass' && !aligned && fromDomain) reason = `passes, but From domain ${fromDomain} is not aligned with d=${domain}, so DMARC cannot use it`;
    return { domain, selector, result, reason, aligned };
  });
}

function spfOf(answer: MailauthAnswer, clientAddress: string): Report['spf'] {
  const spf = answer.spf || undefined;
  const result = spf?.status?.result ?? 'none';
  const domain = spf?.domain ?? null;
  const comment = typeof spf?.status?.comment === 'string' ? spf.status.comment : '';
  let reason: string | null = null;
  if (result === 'none') reason = `no SPF record for ${domain ?? 'the envelope sender'} in the test DNS: add { '${domain ?? '<domain>'}': 'v=spf1 ip4:${clientAddress} -all' }`;
  else if (result === 'fail' || result === 'softfail') reason = `${clientAddress} is not permitted by the SPF record of ${domain ?? '?'} (${comment || result}): add it to the record (ip4:/ip6:/a/mx), or send from a permitted address`;
  else if (result !== 'pass') reason = comment || `SPF ${result} for ${domain ?? '?'}`;
  return { result, domain, reason };
}

function dmarcOf(answer: MailauthAnswer, dkim: Report['dkim'], spf: Report['spf']): Report['dmarc'] {
  const dmarc = answer.dmarc || undefined;
  const result = dmarc?.status?.result ?? 'none';
  const domain = dmarc?.domain ?? dmarc?.status?.header?.from ?? answer.dkim?.headerFrom?.[0]?.split('@').pop() ?? null;
  const policy = dmarc?.policy ?? dmarc?.p ?? null;
  if (result === 'pass') return { result, domain, policy, reason: null };
  if (result === 'none') return { result, domain, policy, reason: `no DMARC record at _dmarc.${domain ?? '<From domain>'} in the test DNS: add { '_dmarc.${domain ?? '<domain>'}': 'v=DMARC1; p=reject' }` };
  const from = normalName(domain ?? '');
  const why: string[] = [];
  const passing = dkim.filter((d) => d.result === 'pass');
  if (passing.length === 0) why.push('no DKIM signature passes');
  for (const d of passing.filter((p) => !p.aligned)) why.push(`From domain ${domain} not aligned with d=${d.domain}`);
  if (spf.result !== 'pass') why.push(`SPF is ${spf.result}`);
  else if (spf.domain && normalName(spf.domain) !== from && !normalName(spf.domain).endsWith(`.${from}`)) why.push(`From domain ${domain} not aligned with the SPF domain ${spf.domain}`);
  const reason = `DMARC ${result} for ${domain}: ${why.join('; ') || 'no aligned pass'}. Sign with d=${domain} (or a subdomain), or send MAIL FROM an address of ${domain} that SPF permits`;
  return { result, domain, policy, reason };
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
    const fromDomain = answer.dkim?.headerFrom?.[0]?.split('@').pop() ?? null;
    const dkim = dkimOf(answer, fromDomain);
    const spf = spfOf(answer, session.clientAddress);
    const arc = answer.arc || undefined;
    return {
      dkim,
      spf,
      dmarc: dmarcOf(answer, dkim, spf),
      arc: { result: arc?.status?.result ?? 'none', reason: typeof arc?.status?.comment === 'string' ? arc.status.comment : null },
      session,
      authenticationResults: (answer.headers ?? '').replace(/^Authentication-Results:\s*/im, '').trim(),
      lookups,
    };
  } finally {
    clearTimeout(timer);
  }
}
