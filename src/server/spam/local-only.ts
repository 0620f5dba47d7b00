/**
 * Which scanner rules are "local-only": they fire only because the mail came
 * straight from a test app over loopback (no relays, no Received header, a
 * trusted network, no reverse DNS) or because the scanner runs without DNS. A
 * receiving server on the internet would not see them, so they are reported
 * apart and not counted. Sender authentication (SPF, DKIM, DMARC) is among
 * them: offline, the scanner cannot look up a record; `message.authentication()`
 * checks it against a test DNS instead.
 *
 * @packageDocumentation
 */

/** SpamAssassin rules that describe the local delivery or the missing DNS, not the message. */
const SPAMASSASSIN = new Set([
  'ALL_TRUSTED', 'NO_RELAYS', 'NO_RECEIVED', 'RDNS_NONE', 'RDNS_DYNAMIC', 'RDNS_LOCALHOST', 'HELO_LOCALHOST', 'HELO_NO_DOMAIN', 'HELO_STATIC_HOST',
  'RCVD_NUMERIC_HELO', 'RCVD_HELO_IP_MISMATCH', 'FSL_HELO_NON_FQDN_1', 'FSL_HELO_BARE_IP_1', 'FSL_HELO_BARE_IP_2', 'KHOP_HELO_FCRDNS', 'NO_DNS_FOR_FROM',
  'DKIM_ADSP_NXDOMAIN', 'DKIM_ADSP_DISCARD', 'DKIM_ADSP_ALL', 'DKIM_ADSP_CUSTOM_MED', 'DKIM_ADSP_CUSTOM_HIGH', 'DKIM_INVALID', 'DKIM_SIGNED', 'DKIM_VALID', 'DKIM_VALID_AU', 'DKIM_VALID_EF',
  'T_DKIM_INVALID', 'DMARC_MISSING', 'DMARC_NONE', 'DMARC_PASS', 'DMARC_REJECT', 'DMARC_QUAR', 'UNPARSEABLE_RELAY', 'HELO_MISC_IP', 'RCVD_IN_DNSWL_NONE',
]);

/** Rspamd symbols of the same kinds. */
const RSPAMD = new Set([
  'RCVD_NO_TLS_LAST', 'RCVD_COUNT_ZERO', 'RCVD_COUNT_ONE', 'ONCE_RECEIVED', 'RCVD_TLS_ALL', 'RCVD_VIA_SMTP_AUTH', 'LOCAL_CLIENT', 'RDNS_NONE', 'HFILTER_HOSTNAME_UNKNOWN',
  'R_DKIM_NA', 'R_DKIM_ALLOW', 'R_DKIM_REJECT', 'R_DKIM_TEMPFAIL', 'R_DKIM_PERMFAIL', 'DKIM_TRACE', 'R_SPF_NA', 'R_SPF_DNSFAIL', 'R_SPF_ALLOW', 'R_SPF_FAIL', 'R_SPF_SOFTFAIL', 'R_SPF_NEUTRAL',
  'DMARC_NA', 'DMARC_POLICY_ALLOW', 'DMARC_POLICY_REJECT', 'DMARC_POLICY_QUARANTINE', 'DMARC_POLICY_SOFTFAIL', 'DMARC_DNSFAIL', 'ARC_NA', 'ASN', 'IP_SCORE', 'MIME_TRACE',
]);

/** Prefixes of rules that exist only with network tests or a relay chain (DNS blocklists, URI blocklists, HELO checks). */
const PREFIXES = ['RCVD_IN_', 'URIBL_', 'SURBL_', 'DNSWL', 'SPF_', 'T_SPF_', 'HFILTER_HELO_', 'RBL_', 'R_SPF_', 'FORGED_RCVD'];

/**
 * Whether a rule fired only because of the local delivery or the missing DNS.
 *
 * @param scanner - Whose rule it is.
 */
export function isLocalOnlyRule(scanner: 'spamassassin' | 'rspamd', name: string): boolean {
  const upper = name.toUpperCase();
  if ((scanner === 'spamassassin' ? SPAMASSASSIN : RSPAMD).has(upper)) return true;
  return PREFIXES.some((prefix) => upper.startsWith(prefix));
}
