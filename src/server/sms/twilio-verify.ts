/**
 * Twilio Verify v2, as its REST API documents it: a verification makes a
 * code, texts it to the number ("Your <service> verification code is:
 * 123456") and checks it. The decisions here are pure, over the stored row:
 * the store keeps the pending verifications (so a check may land on any
 * node) and applies each change atomically. A code lives 10 minutes
 * (Twilio's default), a verification takes 5 checks and a number 5 sends in
 * that time; how many verifications a phone holds and services a caller
 * keeps are bounds of the configuration (`smsVerificationsPerPhone`,
 * `smsVerifyServicesPerCaller`).
 *
 * @packageDocumentation
 */
import { randomInt } from 'node:crypto';
import type { SmsVerificationChange, SmsVerificationRow, SmsVerifyServiceRow } from '../storage/contract/types.ts';
import { twilioSid } from './twilio.ts';

/** How long a code is valid (Twilio's default). */
export const CODE_TTL_MS = 10 * 60_000;
/** Checks a verification takes before 60202. */
export const MAX_CHECKS = 5;
/** Sends a number takes within {@link CODE_TTL_MS} before 60203. */
export const MAX_SENDS = 5;

/** One verification as the API shows it. */
export interface Verification extends SmsVerificationRow {
  status: 'pending' | 'approved';
}

/** A Verify service: made with `POST /v2/Services`, or one the app was configured with. */
export type VerifyService = Pick<SmsVerifyServiceRow, 'sid' | 'friendlyName' | 'codeLength'>;

/** A new service of a caller. */
export function newService(ownerKey: string, friendlyName: string, codeLength: number, now: number): SmsVerifyServiceRow {
  return { sid: twilioSid('VA'), ownerKey, friendlyName, codeLength, createdAt: now };
}

/** A service sid never created here is a service of its own name ("Verify") with 6-digit codes: the sid the app was configured with. */
export function serviceOrDefault(sid: string, stored: SmsVerifyServiceRow | null): VerifyService {
  return stored ?? { sid, friendlyName: 'Verify', codeLength: 6 };
}

/** What a start needs besides the stored row. */
export interface StartRequest {
  service: VerifyService;
  accountSid: string;
  to: string;
  channel: string;
  inboxId: string;
  now: number;
}

/**
 * Starts (or resends) the verification of a number: the pending one keeps
 * its code, as Twilio's does; 'too_many' past {@link MAX_SENDS} sends.
 */
export function startVerification(current: SmsVerificationRow | null, r: StartRequest): SmsVerificationChange<Verification | 'too_many'> {
  if (current) {
    const sends = current.sends.filter((t) => t + CODE_TTL_MS > r.now);
    if (sends.length >= MAX_SENDS) return { result: 'too_many' };
    const write = { ...current, sends: [...sends, r.now], updatedAt: r.now };
    return { write, result: { ...write, status: 'pending' } };
  }
  const length = r.service.codeLength;
  const code = String(randomInt(10 ** length)).padStart(length, '0');
  const write: SmsVerificationRow = {
    sid: twilioSid('VE'), inboxId: r.inboxId, serviceSid: r.service.sid, accountSid: r.accountSid, to: r.to, channel: r.channel, code,
    checks: 0, sends: [r.now], createdAt: r.now, updatedAt: r.now, expiresAt: r.now + CODE_TTL_MS,
  };
  return { write, result: { ...write, status: 'pending' } };
}

/** Checks a code: approved (and gone) when it matches, 'too_many' past {@link MAX_CHECKS}, null without a pending verification. */
export function checkVerification(current: SmsVerificationRow | null, code: string, now: number): SmsVerificationChange<Verification | 'too_many' | null> {
  if (!current) return { result: null };
  if (current.checks >= MAX_CHECKS) return { result: 'too_many' };
  const checked = { ...current, checks: current.checks + 1, updatedAt: now };
  if (code === current.code) return { write: null, result: { ...checked, status: 'approved' } };
  return { write: checked, result: { ...checked, status: 'pending' } };
}

/** The fields Twilio's Verification and VerificationCheck resources share. */
function verificationFields(v: Verification): Record<string, unknown> {
  return {
    sid: v.sid,
    service_sid: v.serviceSid,
    account_sid: v.accountSid,
    to: v.to,
    channel: v.channel,
    status: v.status,
    valid: v.status === 'approved',
    amount: null,
    payee: null,
    date_created: new Date(v.createdAt).toISOString(),
    date_updated: new Date(v.updatedAt).toISOString(),
  };
}

/** The Verification resource (`POST …/Verifications`). */
export function verificationResource(v: Verification, baseUrl: string): Record<string, unknown> {
  return {
    ...verificationFields(v),
    lookup: { carrier: null },
    send_code_attempts: v.sends.map((time, i) => ({ attempt_sid: `VL${v.sid.slice(2, 30)}${String(i).padStart(4, '0')}`, channel: v.channel, time: new Date(time).toISOString() })),
    sna: null,
    url: `${baseUrl}/v2/Services/${v.serviceSid}/Verifications/${v.sid}`,
  };
}

/** The VerificationCheck resource (`POST …/VerificationCheck`). */
export function verificationCheckResource(v: Verification): Record<string, unknown> {
  return { ...verificationFields(v), sna_attempts_error_codes: [] };
}

/** The Service resource (`POST /v2/Services`). */
export function serviceResource(s: VerifyService, accountSid: string, now: number, baseUrl: string): Record<string, unknown> {
  const date = new Date(now).toISOString();
  return { sid: s.sid, account_sid: accountSid, friendly_name: s.friendlyName, code_length: s.codeLength, lookup_enabled: false, psd2_enabled: false, skip_sms_to_landlines: false, dtmf_input_required: false, do_not_share_warning_enabled: false, custom_code_enabled: false, date_created: date, date_updated: date, url: `${baseUrl}/v2/Services/${s.sid}`, links: {} };
}
