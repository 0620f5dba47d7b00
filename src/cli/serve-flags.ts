/**
 * The flags of `inboxkit serve`, in one table: each row is the flag, the
 * server option it sets, how its text is read, and its help. `--help`, the
 * argument parser and the options given to `startServer` all come from it, so
 * a new option is one row.
 *
 * @packageDocumentation
 */
import { DEFAULT_DOMAIN, DEFAULT_HTTP_PORT, DEFAULT_SMTP_PORT } from '../wire/defaults.ts';
import { count, database, duration, lifetime, logLevel, oneOf, orKeyword, pemFile, port, relayUrl, size, text, wholeNumber } from './flag-values.ts';

/** One flag of `inboxkit serve`. */
export interface ServeFlag {
  /** The long flag, without `--`. */
  flag: string;
  /** The placeholder of its value in the help. */
  value: string;
  /** The `startServer` option it sets; a dot names a nested field (`forwarding.attempts`). */
  option: string;
  /** Reads the flag's text; throws a {@link UsageError} naming the flag when it cannot. */
  parse: (text: string, flag: string) => unknown;
  /** Whether the flag may be repeated (its values are collected in an array). */
  multiple?: true;
  /** Whether the flag takes no value (a switch): when given, the option is `parse('', flag)`. */
  switch?: true;
  /**
   * An environment variable: its comma- or space-separated values are added to a
   * repeatable flag's; a single flag's value when the flag is not given.
   */
  env?: string;
  /** The value when the flag is not given; without one the server's default applies. */
  fallback?: unknown;
  /** Help lines. */
  help: string[];
}

/** A heading of the help and the flags under it. */
interface FlagSection {
  title: string;
  flags: ServeFlag[];
  /** A paragraph printed after the section. */
  note?: string;
}

/** Flags that only work together, with the message when one is missing. */
export const TOGETHER: Array<{ flags: string[]; message: string }> = [
  {
    flags: ['smtp-tls-key', 'smtp-tls-cert'],
    message: 'STARTTLS needs both --smtp-tls-key and --smtp-tls-cert (PEM files); give both, or neither to not offer STARTTLS.',
  },
];

/** The flags of `inboxkit serve`, by help section. */
const SERVE_SECTIONS: FlagSection[] = [
  {
    title: 'Options',
    flags: [
      { flag: 'host', value: 'HOST', option: 'host', parse: text, help: ['HTTP host to bind (default 127.0.0.1; 0.0.0.0 exposes it to the network)'] },
      { flag: 'port', value: 'PORT', option: 'port', parse: port, fallback: DEFAULT_HTTP_PORT, help: [`HTTP port, 0 for a free one (default ${DEFAULT_HTTP_PORT})`] },
      { flag: 'smtp-host', value: 'HOST', option: 'smtpHost', parse: text, help: ['SMTP host to bind (default: the HTTP host)'] },
      { flag: 'smtp-port', value: 'PORT', option: 'smtpPort', parse: port, fallback: DEFAULT_SMTP_PORT, help: [`SMTP port, 0 for a free one (default ${DEFAULT_SMTP_PORT})`] },
      {
        flag: 'db', value: 'PATH|URL', option: 'db', parse: database, env: 'DATABASE_URL',
        help: ['SQLite database file (WAL), or a postgres:// URL that several nodes', 'may share; also read from DATABASE_URL (default: in memory, gone on exit)'],
      },
      {
        flag: 'domain', value: 'DOMAIN', option: 'domains', parse: text, multiple: true,
        help: ['Mail domain to accept, repeatable; the first is the default', `(default ${DEFAULT_DOMAIN}, reserved: no mail to it can leave)`],
      },
      {
        flag: 'api-key', value: 'KEY', option: 'apiKeys', parse: text, multiple: true, env: 'INBOXKIT_API_KEYS',
        help: ['Accept this API key (tm_…), repeatable; each is its own user.', 'Prefer INBOXKIT_API_KEYS (comma- or space-separated): a flag shows in ps'],
      },
      {
        flag: 'rate-limit', value: 'N|off', option: 'rateLimit', parse: orKeyword(['off', '0'], false, wholeNumber('requests per minute', 'off')),
        help: ['Requests per minute per credential (per address when anonymous)', '(default 6000)'],
      },
      {
        flag: 'inbox-ttl', value: 'T|never', option: 'inboxTtlSeconds', parse: orKeyword(['never', '0'], null, lifetime),
        help: ['How long an inbox lives, with its mail: seconds or 90m, 12h, 7d', '(default: 1d for guests, 7d for API key users)'],
      },
      {
        flag: 'message-ttl', value: 'T|never', option: 'messageTtlSeconds', parse: orKeyword(['never', '0'], null, lifetime),
        help: ['How long mail is kept, however long its inbox lives; the expiry', 'sweep deletes older mail every minute (default never: as long as its inbox)'],
      },
      {
        flag: 'sweep-batch', value: 'N', option: 'sweepBatch', parse: count,
        help: ['Expired inboxes deleted per pass of the minute\'s sweep (10 passes at most),', 'each owner\'s oldest first, round robin between owners (default 100)'],
      },
      {
        flag: 'ttl', value: 'SECONDS|never', option: 'inboxTtlSeconds', parse: orKeyword(['never', '0'], null, wholeNumber('seconds', 'never')),
        help: ['The older name of --inbox-ttl, in seconds'],
      },
      { flag: 'max-message-size', value: 'SIZE', option: 'maxMessageBytes', parse: size, help: ['Largest message over SMTP, in bytes or with k/m suffix (default 10m)'] },
      {
        flag: 'relay-url', value: 'URL', option: 'relayUrl', parse: relayUrl,
        help: ['SMTP relay for forwarding, e.g. smtp://127.0.0.1:1025;', 'without one, setting forwardTo answers 400 forwarding_unavailable'],
      },
      { flag: 'forward-attempts', value: 'N', option: 'forwarding.attempts', parse: count, help: ['Relay attempts per forwarded message, the first included (default 5)'] },
      {
        flag: 'forward-retry-delay', value: 'D', option: 'forwarding.baseDelayMs', parse: duration,
        help: ['Delay before the first relay retry, doubled after each failure', '(default 1s)'],
      },
      { flag: 'forward-max-retry-delay', value: 'D', option: 'forwarding.maxDelayMs', parse: duration, help: ['Upper bound of a relay retry delay (default 60s)'] },
      {
        flag: 'spam-check', value: 'URL', option: 'spamCheck', parse: (value) => value, env: 'INBOXKIT_SPAM_CHECK',
        help: ['Spam scanner for spam checks: spamd://127.0.0.1:783 (SpamAssassin)', 'or rspamd://127.0.0.1:11333 (Rspamd); without one they answer 400.', 'Also read from INBOXKIT_SPAM_CHECK'],
      },
      { flag: 'spam-check-timeout', value: 'D', option: 'spamCheckTimeoutMs', parse: duration, help: ['Longest a spam check may take (default 10s)'] },
      {
        flag: 'spam-check-concurrency', value: 'N', option: 'spamCheckConcurrency', parse: count,
        help: ['Spam checks sent to the scanner at once; the rest wait their turn,', 'round robin per caller (default 5, spamd\'s --max-children)'],
      },
      {
        flag: 'sms-verifications-per-phone', value: 'N', option: 'smsVerificationsPerPhone', parse: count,
        help: ['Pending SMS verifications (Twilio Verify, Vonage Verify) one phone', 'holds; past it the oldest go (default 20)'],
      },
      {
        flag: 'sms-verify-services-per-caller', value: 'N', option: 'smsVerifyServicesPerCaller', parse: count,
        help: ['Twilio Verify services one caller keeps; past it the oldest go', '(default 1000)'],
      },
    ],
  },
  {
    title: 'SMTP intake',
    flags: [
      { flag: 'smtp-tls-key', value: 'PATH', option: 'smtpTls.key', parse: pemFile, help: ['Offer STARTTLS with this private key (PEM); needs --smtp-tls-cert'] },
      { flag: 'smtp-tls-cert', value: 'PATH', option: 'smtpTls.cert', parse: pemFile, help: ['Certificate (chain, PEM) for STARTTLS; needs --smtp-tls-key'] },
      {
        flag: 'smtp-tls-self-signed', value: '', option: 'smtpTlsSelfSigned', parse: () => true, switch: true,
        help: ['Offer STARTTLS with a self-signed certificate made at start', '(needs the package selfsigned); ignored with --smtp-tls-key'],
      },
      {
        flag: 'smtp-auth', value: 'off|optional|required', option: 'smtpAuth', parse: oneOf(['off', 'optional', 'required']),
        help: ['SMTP AUTH PLAIN/LOGIN after STARTTLS; the password is an API key', '(inboxkit keys create); required: no mail before it (default off)'],
      },
      {
        flag: 'smtp-auth-max-failures', value: 'N', option: 'smtpAuthMaxFailures', parse: count,
        help: ['Failed SMTP AUTH attempts per connection; the last gets 421 and', 'the connection is closed (default 3)'],
      },
      {
        flag: 'smtp-auth-failure-delay', value: 'D', option: 'smtpAuthFailureDelayMs', parse: duration,
        help: ['After a failed AUTH, the wait before the next AUTH from that address,', 'doubling per failure within 10 min up to 30s; 0: none (default 250ms)'],
      },
      {
        flag: 'smtp-greeting-delay', value: 'D', option: 'smtpGreetingDelayMs', parse: duration,
        help: ['Wait before the 220 greeting; a client that talks first gets 421', '(default 0)'],
      },
      {
        flag: 'smtp-timeout', value: 'D', option: 'smtpSocketTimeoutMs', parse: duration,
        help: ['Close an SMTP connection idle this long while the server waits', 'for it, or taking longer to send one line, with 421 (default 60s)'],
      },
      {
        flag: 'smtp-max-connections', value: 'N|unlimited', option: 'smtpMaxConnections', parse: orKeyword(['unlimited'], null, count),
        help: ['Most simultaneous SMTP connections on this node; the next gets 421', '(default 1000)'],
      },
      {
        flag: 'smtp-proxy', value: 'all|ADDR', option: 'smtpProxy', parse: (value) => (value === 'all' ? true : value.split(',').map((peer) => peer.trim()).filter(Boolean)),
        help: ['Read a PROXY protocol header from these balancer addresses', '(comma-separated) or from all peers; caps then count the client\'s own address'],
      },
      {
        flag: 'smtp-max-connections-per-address', value: 'N|unlimited', option: 'smtpMaxConnectionsPerAddress', parse: orKeyword(['unlimited'], null, count),
        help: ['Simultaneous SMTP connections per client address on this node', '(behind a balancer, the address of its PROXY header); the next gets 421 (default 100)'],
      },
    ],
  },
  {
    title: 'IMAP and POP3: every inbox a mailbox (see docs/imap-pop3.md)',
    flags: [
      {
        flag: 'imap-port', value: 'PORT', option: 'imapPort', parse: port,
        help: ['Serve IMAP (IDLE included) on this port, 0 for a free one; log in', 'with an inbox address and its inbox token (default off)'],
      },
      { flag: 'pop3-port', value: 'PORT', option: 'pop3Port', parse: port, help: ['Serve POP3 on this port, 0 for a free one (default off)'] },
      { flag: 'imap-host', value: 'HOST', option: 'imapHost', parse: text, help: ['IMAP host to bind (default: the SMTP host)'] },
      { flag: 'pop3-host', value: 'HOST', option: 'pop3Host', parse: text, help: ['POP3 host to bind (default: the SMTP host)'] },
      {
        flag: 'mailbox-max-connections', value: 'N|unlimited', option: 'mailboxMaxConnections', parse: orKeyword(['unlimited'], null, count),
        help: ['Simultaneous IMAP (and POP3) connections on this node (default 1000)'],
      },
      {
        flag: 'mailbox-max-connections-per-address', value: 'N|unlimited', option: 'mailboxMaxConnectionsPerAddress', parse: orKeyword(['unlimited'], null, count),
        help: ['Simultaneous IMAP (and POP3) connections per client address', '(default 100)'],
      },
      { flag: 'mailbox-idle-timeout', value: 'D', option: 'mailboxIdleTimeoutMs', parse: duration, help: ['Close a logged-in connection silent this long, IDLE included', '(default 30m)'] },
      { flag: 'mailbox-login-timeout', value: 'D', option: 'mailboxLoginTimeoutMs', parse: duration, help: ['Close a connection not logged in and silent this long (default 60s)'] },
      { flag: 'mailbox-max-line-bytes', value: 'SIZE', option: 'mailboxMaxLineBytes', parse: size, help: ['Longest command line, k/m suffix (default 64k)'] },
      { flag: 'mailbox-max-literal-bytes', value: 'SIZE', option: 'mailboxMaxLiteralBytes', parse: size, help: ['Literal bytes one IMAP command may carry, k/m suffix (default 64k)'] },
      {
        flag: 'mailbox-commands-per-minute', value: 'N|unlimited', option: 'mailboxCommandsPerMinute', parse: orKeyword(['unlimited'], null, count),
        help: ['Commands per minute per connection; past it they are refused', '(default 6000)'],
      },
      {
        flag: 'mailbox-max-login-failures', value: 'N', option: 'mailboxMaxLoginFailures', parse: count,
        help: ['Failed logins before a connection is closed; each also doubles', 'the wait for that address, 250ms to 8s (default 3)'],
      },
      { flag: 'mailbox-max-messages', value: 'N', option: 'mailboxMaxMessages', parse: count, help: ['Messages one IMAP or POP3 session lists (default 10000)'] },
      {
        flag: 'mailbox-proxy', value: 'all|ADDR', option: 'mailboxProxy', parse: (value) => (value === 'all' ? true : value.split(',').map((peer) => peer.trim()).filter(Boolean)),
        help: ['Read a PROXY protocol header on IMAP and POP3 from these balancer', 'addresses (comma-separated) or from all peers'],
      },
    ],
  },
  {
    title: 'Team service (behind a balancer; see docs/team-service.md)',
    flags: [
      {
        flag: 'trust-proxy', value: 'ADDR', option: 'trustProxy', parse: text, multiple: true,
        help: ['Take the HTTP client address from X-Forwarded-For when the peer is', 'this balancer address, repeatable; never from other peers (default none)'],
      },
      {
        flag: 'webhook-allow', value: 'HOST[:PORT]', option: 'webhookAllow', parse: text, multiple: true,
        help: ['A webhook target the provider APIs may call, repeatable; a shared', 'service calls nothing else, a local one loopback too (default none)'],
      },
      {
        flag: 'drain-notice', value: 'D', option: 'drainNoticeMs', parse: duration,
        help: ['On SIGTERM, how long /readyz fails before new SMTP sessions get 421', 'and event streams end: the balancer\'s check interval × fall (default 0)'],
      },
      {
        flag: 'drain-timeout', value: 'D', option: 'drainTimeoutMs', parse: duration,
        help: ['The longest a drain takes; what is still open then is cut (default 25s)'],
      },
      {
        flag: 'metrics', value: '', option: 'metrics', parse: () => true, switch: true,
        help: ['Serve /metrics in the Prometheus text format (needs prom-client)'],
      },
    ],
  },
  {
    title: 'Event stream',
    flags: [
      { flag: 'stream-ping-interval', value: 'D', option: 'streamPingIntervalMs', parse: duration, help: ['Interval of the ": ping" keep-alive comment (default 15s)'] },
      {
        flag: 'stream-max-buffer', value: 'SIZE', option: 'streamMaxBufferedBytes', parse: size,
        help: ['Bytes a stream client may leave unread before it is dropped as', 'too slow (it resumes with Last-Event-ID), k/m suffix (default 1m)'],
      },
    ],
    note: 'Durations (D) are milliseconds, or a number with ms, s or m (e.g. 500ms, 30s, 2m).',
  },
  {
    title: 'Shared service bounds (see docs/security.md)',
    flags: [
      {
        flag: 'allowed-host', value: 'NAME', option: 'allowedHosts', parse: text, multiple: true,
        help: ['Also answer this Host name (or name:port) when bound to loopback,', 'repeatable; for a port forward (default: loopback names only)'],
      },
      {
        flag: 'max-streams-per-credential', value: 'N|unlimited', option: 'maxStreamsPerCredential', parse: orKeyword(['unlimited'], null, count),
        help: ['Open event streams per credential; the next is 429 (default 128)'],
      },
      {
        flag: 'max-streams-per-address', value: 'N|unlimited', option: 'maxStreamsPerAddress', parse: orKeyword(['unlimited'], null, count),
        help: ['Open event streams per client address; the next is 429 (default 512)'],
      },
      {
        flag: 'max-guest-inboxes-per-address', value: 'N|unlimited', option: 'maxGuestInboxesPerAddress', parse: orKeyword(['unlimited'], null, count),
        help: ['Active guest inboxes per client address; the next is 429', '(default 10000)'],
      },
      {
        flag: 'max-stored-bytes', value: 'SIZE|unlimited', option: 'maxStoredBytes', parse: orKeyword(['unlimited'], null, size),
        help: ['Mail kept in memory (no --db); past it the oldest mail of the', 'largest inboxes is evicted, k/m suffix (default 256m)'],
      },
      {
        flag: 'forward-allow', value: 'DOMAIN', option: 'forwardAllow', parse: text, multiple: true,
        help: ['With --relay-url, let guest inboxes forward to this domain,', 'repeatable (default: only API-key users may forward)'],
      },
    ],
  },
  {
    title: 'Web viewer',
    flags: [
      {
        flag: 'no-operator-token', value: '', option: 'operatorToken', parse: () => false, switch: true,
        help: ['Do not make an operator token (the viewer then needs an inbox', 'token or API key, as the API does)'],
      },
    ],
  },
  {
    title: 'MCP server (for AI agents)',
    flags: [
      {
        flag: 'no-mcp', value: '', option: 'mcp', parse: () => false, switch: true,
        help: ['Do not serve MCP (Streamable HTTP) at /mcp; it needs the optional', 'package @modelcontextprotocol/sdk (see: inboxkit mcp --help)'],
      },
    ],
  },
  {
    title: 'Logging and help',
    flags: [
      {
        flag: 'log-level', value: 'LEVEL', option: 'logLevel', parse: logLevel, fallback: 'warn',
        help: ['fatal, error, warn, info, debug, trace or silent (default warn);', 'logs are JSON lines on stderr'],
      },
    ],
  },
];

/**
 * The environment variable a flag is also read from: the row's own
 * (`DATABASE_URL`, `INBOXKIT_API_KEYS`…), else `INBOXKIT_` and the flag in
 * capitals (`--smtp-max-connections` → `INBOXKIT_SMTP_MAX_CONNECTIONS`). A
 * flag given on the command line wins; a switch is on with 1, true or yes.
 */
export function envNameOf(row: ServeFlag): string {
  return row.env ?? `INBOXKIT_${row.flag.toUpperCase().replace(/-/g, '_')}`;
}

/** Every flag of the table. */
export const SERVE_FLAGS: ServeFlag[] = SERVE_SECTIONS.flatMap((section) => section.flags);

/** Help lines of one flag: its help after the flag, or on the next lines when the flag is long. */
function flagHelp(lead: string, help: string[]): string[] {
  const column = 27;
  const indent = ' '.repeat(column);
  if (lead.length >= column) return [lead, ...help.map((line) => indent + line)];
  const [first = '', ...rest] = help;
  return [lead.padEnd(column) + first, ...rest.map((line) => indent + line)];
}

/** The option lines of `inboxkit serve --help`, from the table. */
export function serveFlagsHelp(): string {
  const out: string[] = [];
  for (const section of SERVE_SECTIONS) {
    out.push(`${section.title}:`);
    for (const row of section.flags) out.push(...flagHelp(`  --${row.flag} ${row.value}`.trimEnd(), row.help));
    if (section.title === 'Logging and help') out.push(...flagHelp('  -h, --help', ['Show this help']));
    out.push('');
    if (section.note) out.push(section.note, '');
  }
  return out.join('\n');
}
