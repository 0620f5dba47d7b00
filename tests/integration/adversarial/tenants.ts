/**
 * Two tenants on one server, for the authorization and at-rest suites: user A
 * and user B (API keys), guest inboxes, a session of B (revoked), an expired
 * guest inbox of B, and mail with attachments in B's inboxes.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { CreatedInbox, MessageSummary } from '../../../src/wire/schemas.ts';
import { sendRaw } from './helpers.ts';
import type { Harness } from './helpers.ts';

export const KEY_A = 'tm_tenantAtenantAtenantAtenantA01';
export const KEY_B = 'tm_tenantBtenantBtenantBtenantB02';

/** B's secret content: none of it may reach another tenant. */
export const B_MARKERS = {
  subject: 'B-SECRET-SUBJECT-7f3a9c',
  text: 'B-SECRET-TEXT-d41d8c',
  attachment: 'B-SECRET-ATTACHMENT-BYTES-9e107d',
  filename: 'b-secret-filename-55aa.txt',
};

export function messageWithAttachment(to: string, subject: string, text: string, attachment: string, filename: string): string {
  const boundary = `b-${randomBytes(6).toString('hex')}`;
  return [
    'From: b@tenant-b.test',
    `To: ${to}`,
    `Subject: ${subject}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    text,
    `--${boundary}`,
    `Content-Type: text/plain; name="${filename}"`,
    `Content-Disposition: attachment; filename="${filename}"`,
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from(attachment).toString('base64'),
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

export interface TenantMessage {
  inbox: CreatedInbox;
  messageId: string;
  attachmentId: string;
}

export interface Tenants {
  /** A's user inbox, created with KEY_A, with one message of A. */
  a: TenantMessage;
  /** A guest inbox (its token is "another inbox's token"). */
  guestA: TenantMessage;
  /** B's user inbox with B's message. */
  b: TenantMessage;
  /** B's guest inbox with B's message. */
  guestB: TenantMessage;
  /** B's session token, revoked. */
  revokedSessionB: string;
  /** A live session token of A. */
  sessionA: string;
  /** The token of B's expired guest inbox. */
  expiredTokenB: string;
  /** The connect code that issued A's session (spent). */
  connectCodeA: string;
  /** Every secret handed out, for the at-rest dump. */
  secrets: string[];
}

async function deliver(h: Harness, inbox: CreatedInbox, subject: string, text: string, attachment: string, filename: string, auth: Record<string, string>): Promise<TenantMessage> {
  const reply = await sendRaw(h.server.smtpPort, 'b@tenant-b.test', [inbox.address], messageWithAttachment(inbox.address, subject, text, attachment, filename));
  if (reply.code !== 250) throw new Error(`delivery failed: ${reply.text}`);
  const list = await h.call(`/inboxes/${inbox.id}/messages`, { headers: auth });
  const [summary] = (list.json as { data: { items: MessageSummary[] } }).data.items;
  const full = await h.call(`/messages/${summary!.id}`, { headers: auth });
  const attachmentId = (full.json as { data: { attachments: Array<{ id: string }> } }).data.attachments[0]!.id;
  return { inbox, messageId: summary!.id, attachmentId };
}

const s256 = (v: string) => createHash('sha256').update(v).digest('base64url');

/** A session token for a user key, through the PKCE exchange. */
export async function sessionFor(h: Harness, key: string): Promise<{ token: string; code: string }> {
  const verifier = randomBytes(48).toString('base64url');
  const codeRes = await h.call('/extension/codes', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ codeChallenge: s256(verifier), codeChallengeMethod: 'S256', redirectUri: 'https://ext.test/cb' }),
  });
  const code = (codeRes.json as { data: { code: string } }).data.code;
  const tokenRes = await h.call('/extension/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, codeVerifier: verifier, redirectUri: 'https://ext.test/cb' }),
  });
  if (tokenRes.status !== 200) throw new Error(`token exchange failed: ${tokenRes.text}`);
  return { token: (tokenRes.json as { data: { accessToken: string } }).data.accessToken, code };
}

/**
 * Sets up both tenants. `advance(ms)` moves the server's clock: B's expired
 * guest inbox is created first and expired before the others exist.
 */
export async function setUpTenants(h: Harness, advance: (ms: number) => void): Promise<Tenants> {
  const keyA = { authorization: `Bearer ${KEY_A}` };
  const keyB = { authorization: `Bearer ${KEY_B}` };
  const expired = await h.createInbox({}, keyB);
  const expiredGuest = await h.createInbox();
  await deliver(h, expiredGuest, B_MARKERS.subject, B_MARKERS.text, B_MARKERS.attachment, B_MARKERS.filename, { 'x-inbox-token': expiredGuest.token });
  advance(8 * 86_400_000);
  void expired;

  const a = await h.createInbox({}, keyA);
  const guestA = await h.createInbox();
  const b = await h.createInbox({ label: 'b-label' }, keyB);
  const guestB = await h.createInbox({ label: 'gb-label' });
  const tenants: Tenants = {
    a: await deliver(h, a, 'A subject', 'A text', 'A attachment', 'a.txt', keyA),
    guestA: await deliver(h, guestA, 'GA subject', 'GA text', 'GA attachment', 'ga.txt', { 'x-inbox-token': guestA.token }),
    b: await deliver(h, b, B_MARKERS.subject, B_MARKERS.text, B_MARKERS.attachment, B_MARKERS.filename, keyB),
    guestB: await deliver(h, guestB, B_MARKERS.subject, B_MARKERS.text, B_MARKERS.attachment, B_MARKERS.filename, { 'x-inbox-token': guestB.token }),
    revokedSessionB: '',
    sessionA: '',
    expiredTokenB: expiredGuest.token,
    connectCodeA: '',
    secrets: [KEY_A, KEY_B, a.token, guestA.token, b.token, guestB.token, expiredGuest.token, expired.token],
  };
  const sessionB = await sessionFor(h, KEY_B);
  const signOut = await h.call('/me/session', { method: 'DELETE', headers: { authorization: `Bearer ${sessionB.token}` } });
  if (signOut.status !== 200) throw new Error(`sign-out failed: ${signOut.text}`);
  tenants.revokedSessionB = sessionB.token;
  const sessionA = await sessionFor(h, KEY_A);
  tenants.sessionA = sessionA.token;
  tenants.connectCodeA = sessionA.code;
  // An unused connect code stays in the database too.
  const pending = await h.call('/extension/codes', {
    method: 'POST',
    headers: { ...keyB, 'content-type': 'application/json' },
    body: JSON.stringify({ codeChallenge: s256('x'.repeat(43)), codeChallengeMethod: 'S256', redirectUri: 'https://ext.test/cb' }),
  });
  tenants.secrets.push(sessionB.token, sessionB.code, sessionA.token, sessionA.code, (pending.json as { data: { code: string } }).data.code);
  return tenants;
}
