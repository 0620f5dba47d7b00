/**
 * Configuration from the environment for every flag of `inboxkit serve`
 * (issue 40). The table below names every flag, its variable and a value: a
 * new flag fails the first test until it is added here, and so until its
 * variable is chosen and shown in the guide.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, expect } from '@playwright/test';
import { SERVE_FLAGS, envNameOf } from '../../../src/cli/serve-flags.ts';
import { serveOptionsOf } from '../../../src/cli/serve.ts';

const PEM = '(a PEM file)';

/** Every flag: its environment variable, and a value to give it (`true` for a switch). */
const EVERY_FLAG: Record<string, [env: string, value: string | true]> = {
  host: ['INBOXKIT_HOST', '0.0.0.0'],
  port: ['INBOXKIT_PORT', '8025'],
  'smtp-host': ['INBOXKIT_SMTP_HOST', '127.0.0.1'],
  'smtp-port': ['INBOXKIT_SMTP_PORT', '2525'],
  db: ['DATABASE_URL', 'postgres://inboxkit@127.0.0.1:5432/inboxkit'],
  domain: ['INBOXKIT_DOMAIN', 'mail.qa.example.com'],
  'api-key': ['INBOXKIT_API_KEYS', 'tm_0123456789abcdefghij'],
  'rate-limit': ['INBOXKIT_RATE_LIMIT', '600'],
  'inbox-ttl': ['INBOXKIT_INBOX_TTL', '7d'],
  'message-ttl': ['INBOXKIT_MESSAGE_TTL', '90m'],
  'sweep-batch': ['INBOXKIT_SWEEP_BATCH', '50'],
  ttl: ['INBOXKIT_TTL', '604800'],
  'max-message-size': ['INBOXKIT_MAX_MESSAGE_SIZE', '5m'],
  'relay-url': ['INBOXKIT_RELAY_URL', 'smtp://127.0.0.1:1025'],
  'forward-attempts': ['INBOXKIT_FORWARD_ATTEMPTS', '3'],
  'forward-retry-delay': ['INBOXKIT_FORWARD_RETRY_DELAY', '2s'],
  'forward-max-retry-delay': ['INBOXKIT_FORWARD_MAX_RETRY_DELAY', '1m'],
  'spam-check': ['INBOXKIT_SPAM_CHECK', 'spamd://127.0.0.1:783'],
  'spam-check-timeout': ['INBOXKIT_SPAM_CHECK_TIMEOUT', '5s'],
  'spam-check-concurrency': ['INBOXKIT_SPAM_CHECK_CONCURRENCY', '3'],
  'sms-verifications-per-phone': ['INBOXKIT_SMS_VERIFICATIONS_PER_PHONE', '30'],
  'sms-verify-services-per-caller': ['INBOXKIT_SMS_VERIFY_SERVICES_PER_CALLER', '200'],
  'smtp-tls-key': ['INBOXKIT_SMTP_TLS_KEY', PEM],
  'smtp-tls-cert': ['INBOXKIT_SMTP_TLS_CERT', PEM],
  'smtp-tls-self-signed': ['INBOXKIT_SMTP_TLS_SELF_SIGNED', true],
  'smtp-auth': ['INBOXKIT_SMTP_AUTH', 'required'],
  'smtp-auth-max-failures': ['INBOXKIT_SMTP_AUTH_MAX_FAILURES', '5'],
  'smtp-auth-failure-delay': ['INBOXKIT_SMTP_AUTH_FAILURE_DELAY', '1s'],
  'smtp-greeting-delay': ['INBOXKIT_SMTP_GREETING_DELAY', '1s'],
  'smtp-timeout': ['INBOXKIT_SMTP_TIMEOUT', '30s'],
  'smtp-max-connections': ['INBOXKIT_SMTP_MAX_CONNECTIONS', '200'],
  'smtp-proxy': ['INBOXKIT_SMTP_PROXY', '127.0.0.1'],
  'smtp-max-connections-per-address': ['INBOXKIT_SMTP_MAX_CONNECTIONS_PER_ADDRESS', '10'],
  'imap-port': ['INBOXKIT_IMAP_PORT', '1143'],
  'pop3-port': ['INBOXKIT_POP3_PORT', '1110'],
  'imap-host': ['INBOXKIT_IMAP_HOST', '127.0.0.1'],
  'pop3-host': ['INBOXKIT_POP3_HOST', '127.0.0.1'],
  'mailbox-max-connections': ['INBOXKIT_MAILBOX_MAX_CONNECTIONS', '50'],
  'mailbox-max-connections-per-address': ['INBOXKIT_MAILBOX_MAX_CONNECTIONS_PER_ADDRESS', '5'],
  'mailbox-idle-timeout': ['INBOXKIT_MAILBOX_IDLE_TIMEOUT', '10m'],
  'mailbox-login-timeout': ['INBOXKIT_MAILBOX_LOGIN_TIMEOUT', '20s'],
  'mailbox-max-line-bytes': ['INBOXKIT_MAILBOX_MAX_LINE_BYTES', '8k'],
  'mailbox-max-literal-bytes': ['INBOXKIT_MAILBOX_MAX_LITERAL_BYTES', '16k'],
  'mailbox-commands-per-minute': ['INBOXKIT_MAILBOX_COMMANDS_PER_MINUTE', '600'],
  'mailbox-max-login-failures': ['INBOXKIT_MAILBOX_MAX_LOGIN_FAILURES', '5'],
  'mailbox-max-messages': ['INBOXKIT_MAILBOX_MAX_MESSAGES', '500'],
  'mailbox-proxy': ['INBOXKIT_MAILBOX_PROXY', '127.0.0.1'],
  'trust-proxy': ['INBOXKIT_TRUST_PROXY', '127.0.0.1'],
  'webhook-allow': ['INBOXKIT_WEBHOOK_ALLOW', 'app.internal:8443'],
  'drain-notice': ['INBOXKIT_DRAIN_NOTICE', '3s'],
  'drain-timeout': ['INBOXKIT_DRAIN_TIMEOUT', '25s'],
  metrics: ['INBOXKIT_METRICS', true],
  'stream-ping-interval': ['INBOXKIT_STREAM_PING_INTERVAL', '10s'],
  'stream-max-buffer': ['INBOXKIT_STREAM_MAX_BUFFER', '2m'],
  'allowed-host': ['INBOXKIT_ALLOWED_HOST', 'inbox.local'],
  'max-streams-per-credential': ['INBOXKIT_MAX_STREAMS_PER_CREDENTIAL', '64'],
  'max-streams-per-address': ['INBOXKIT_MAX_STREAMS_PER_ADDRESS', '256'],
  'max-guest-inboxes-per-address': ['INBOXKIT_MAX_GUEST_INBOXES_PER_ADDRESS', '100'],
  'max-stored-bytes': ['INBOXKIT_MAX_STORED_BYTES', '128m'],
  'forward-allow': ['INBOXKIT_FORWARD_ALLOW', 'example.com'],
  'no-operator-token': ['INBOXKIT_NO_OPERATOR_TOKEN', true],
  'no-mcp': ['INBOXKIT_NO_MCP', true],
  'log-level': ['INBOXKIT_LOG_LEVEL', 'info'],
};

test('every flag of inboxkit serve has the environment variable this table names, and no two share one', () => {
  const actual = Object.fromEntries(SERVE_FLAGS.map((row) => [row.flag, envNameOf(row)]));
  const listed = Object.fromEntries(Object.entries(EVERY_FLAG).map(([flag, [env]]) => [flag, env]));
  expect(actual, 'a flag was added or renamed: give it a row in EVERY_FLAG (tests/unit/cli/serve-env.spec.ts) and in the guide (docs/team-service.md)').toEqual(listed);
  expect(new Set(Object.values(actual)).size).toBe(SERVE_FLAGS.length);
});

test('the environment sets every flag exactly as the command line does', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'inboxkit-env-'));
  try {
    const pem = join(dir, 'tls.pem');
    writeFileSync(pem, '-----BEGIN TEST-----\n-----END TEST-----\n');
    const value = (v: string | true) => (v === PEM ? pem : v);
    // --ttl, the older name of --inbox-ttl, is refused beside it: it is checked on its own below.
    const rows = SERVE_FLAGS.filter((row) => row.flag !== 'ttl');
    const flags: Record<string, string | boolean | string[]> = Object.fromEntries(
      rows.map((row) => {
        const given = value(EVERY_FLAG[row.flag]![1]);
        return [row.flag, row.multiple ? [String(given)] : given];
      }),
    );
    const env = Object.fromEntries(rows.map((row) => [envNameOf(row), String(value(EVERY_FLAG[row.flag]![1]))]));
    const fromFlags = await serveOptionsOf(flags, {});
    const fromEnv = await serveOptionsOf({}, env);
    expect(fromEnv).toEqual(fromFlags);
    // Every flag's option was set (none silently dropped).
    for (const row of SERVE_FLAGS) {
      const set = row.option.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], fromEnv);
      expect(set, `${envNameOf(row)} set nothing`).not.toBeUndefined();
    }
    expect(fromEnv).toMatchObject({ messageTtlSeconds: 5400, inboxTtlSeconds: 604_800, trustProxy: ['127.0.0.1'] });
    expect(await serveOptionsOf({ ttl: '3600' }, {})).toEqual(await serveOptionsOf({}, { INBOXKIT_TTL: '3600' }));
    expect(await serveOptionsOf({}, { INBOXKIT_TTL: '3600' })).toMatchObject({ inboxTtlSeconds: 3600 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two names for one setting are refused together, naming both, instead of one silently winning', async () => {
  await expect(serveOptionsOf({ ttl: '3600', 'inbox-ttl': '7d' }, {})).rejects.toThrow(/--inbox-ttl and --ttl set the same thing \(--ttl is the older name of --inbox-ttl, in seconds\); give only one of them/);
  await expect(serveOptionsOf({ 'inbox-ttl': '7d' }, { INBOXKIT_TTL: '3600' })).rejects.toThrow(/--inbox-ttl and INBOXKIT_TTL set the same thing/);
  await expect(serveOptionsOf({}, { INBOXKIT_INBOX_TTL: '7d', INBOXKIT_TTL: '3600' })).rejects.toThrow(/INBOXKIT_INBOX_TTL and INBOXKIT_TTL set the same thing/);
});

test('the team-service guide names every variable', () => {
  const guide = readFileSync(new URL('../../../docs/team-service.md', import.meta.url), 'utf8');
  for (const row of SERVE_FLAGS) expect(guide, `docs/team-service.md does not name ${envNameOf(row)} (--${row.flag})`).toContain(`\`${envNameOf(row)}\``);
});
