/**
 * How mailauth's answer reads as an authentication result: each DKIM
 * signature, SPF, DMARC and ARC, with a reason that says what to fix when it
 * did not pass. Pure (the wire type and the DNS name's normal form only), so that the
 * client's `message.authentication()` and the service's authentication check
 * (`POST /messages/{id}/authentication`) explain a result in the same words.
 *
 * @packageDocumentation
 */
import type { AuthenticationCheck } from '../wire/authentication-check.ts';
import { dnsName as normalName } from './dns-name.ts';

/** One status in mailauth's answer. */
export interface MailauthStatus {
  result?: string;
  comment?: string | false;
  header?: Record<string, string>;
  aligned?: string | false;
}

/** What the readers use of mailauth's `authenticate()` answer. */
export interface MailauthAnswer {
  dkim?: { headerFrom?: string[]; results?: Array<{ signingDomain?: string; selector?: string; status?: MailauthStatus }> };
  spf?: { domain?: string; status?: MailauthStatus } | false;
  dmarc?: { status?: MailauthStatus; domain?: string; policy?: string; p?: string } | false;
  arc?: { status?: MailauthStatus } | false;
  headers?: string;
}

/** An authentication result without the test DNS's lookups (the service adds them). */
export type AuthenticationReading = Omit<AuthenticationCheck, 'lookups'>;

/** A DKIM result's reason, in words that say what to fix. */
function dkimReason(comment: string, selector: string, domain: string): string {
  const at = `${selector}._domainkey.${domain}`;
  if (comment === 'body hash did not verify') return 'body hash did not verify: the body was changed after signing (sign the final body; a relay or template step must not rewrite it)';
  if (comment === 'no key') return `no key at ${at} in the test DNS: add { '${at}': 'v=DKIM1; k=rsa; p=<base64 public key>' } to dns`;
  if (comment === 'bad signature') return `bad signature: the key at ${at} does not verify the signed headers (a signed header was changed after signing, or the key is not the public half of the signing key)`;
  if (comment === 'message not signed') return 'the message has no DKIM-Signature header: sign it (nodemailer: the dkim transport option)';
  if (/^invalid public key|unknown key|key not for email|inappropriate hash/.test(comment)) return `${comment}: the record at ${at} in the test DNS is not a usable DKIM key`;
  return comment;
}

function dkimOf(answer: MailauthAnswer, fromDomain: string | null): AuthenticationReading['dkim'] {
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

function spfOf(answer: MailauthAnswer, clientAddress: string): AuthenticationReading['spf'] {
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

function dmarcOf(answer: MailauthAnswer, dkim: AuthenticationReading['dkim'], spf: AuthenticationReading['spf']): AuthenticationReading['dmarc'] {
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

/**
 * Reads mailauth's answer for a message checked with `session`.
 *
 * @example
 * ```ts
 * const answer = await authenticate(raw, { ip: session.clientAddress, sender: session.mailFrom, resolver });
 * const { dkim, spf, dmarc } = readMailauthAnswer(answer, session);
 * ```
 */
export function readMailauthAnswer(answer: MailauthAnswer, session: AuthenticationReading['session']): AuthenticationReading {
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
  };
}
