/**
 * Vonage's Verify API (v1, what `@vonage/server-sdk`'s `verify.start()`,
 * `check()` and `cancel()` call), as its reference documents it: the service
 * makes a code, texts it to the number and checks it. Every answer is HTTP
 * 200 with a `status`: `"0"` for success and Vonage's codes otherwise. The
 * decisions here are pure, over the stored row (the same table as Twilio
 * Verify's, under a service key of their own), so a check may land on any node.
 *
 * @packageDocumentation
 */
import { randomInt } from 'node:crypto';
import type { SmsVerificationChange, SmsVerificationRow } from '../storage/contract/types.ts';
import { hexId } from './kit.ts';

/** Wrong codes a request takes: the third ends it with status 17. */
export const VONAGE_MAX_WRONG = 3;
/** A code's life when the app gives no `pin_expiry`, in seconds (Vonage's default). */
export const VONAGE_PIN_EXPIRY = 300;
/**
 * The longest a code lives here, in seconds, whatever `pin_expiry` asks
 * (Vonage takes up to 3600): a live request holds its number (no concurrent
 * one to it), so one caller cannot hold a phone for an hour.
 */
export const VONAGE_MAX_HELD_SECONDS = 600;
/** Vonage refuses to cancel a request in its first 30 seconds (status 19). */
export const VONAGE_CANCEL_AFTER_MS = 30_000;

/** The stored service key of a caller's Vonage verifications (the rows share Twilio Verify's table). */
export function vonageServiceKey(callerKey: string): string {
  return `vonage-verify ${callerKey}`;
}

/** A Vonage Verify answer: always HTTP 200, the outcome in `status`. */
export function vonageVerifyError(status: string, errorText: string, requestId = ''): Record<string, string> {
  return { request_id: requestId, status, error_text: errorText };
}

/** What a start needs besides the stored row. */
export interface VonageStart {
  serviceKey: string;
  apiKey: string;
  to: string;
  inboxId: string;
  codeLength: 4 | 6;
  pinExpirySeconds: number;
  now: number;
}

/** Starts a request; a number with a request in progress gets status 10, as Vonage refuses concurrent verifications. */
export function startVonageVerification(current: SmsVerificationRow | null, r: VonageStart): SmsVerificationChange<SmsVerificationRow | { concurrent: string }> {
  if (current) return { result: { concurrent: current.sid } };
  const write: SmsVerificationRow = {
    sid: hexId(16), inboxId: r.inboxId, serviceSid: r.serviceKey, accountSid: r.apiKey, to: r.to, channel: 'sms',
    code: String(randomInt(10 ** r.codeLength)).padStart(r.codeLength, '0'),
    checks: 0, sends: [r.now], createdAt: r.now, updatedAt: r.now, expiresAt: r.now + r.pinExpirySeconds * 1000,
  };
  return { write, result: write };
}

/** The outcome of a check. */
export type VonageCheck = 'approved' | 'mismatch' | 'too_many' | 'not_found';

/** Checks a code: right, it is approved and gone; wrong, counted, and the third wrong one ends the request. */
export function checkVonageVerification(current: SmsVerificationRow | null, code: string, now: number): SmsVerificationChange<VonageCheck> {
  if (!current) return { result: 'not_found' };
  if (code === current.code) return { write: null, result: 'approved' };
  const checks = current.checks + 1;
  if (checks >= VONAGE_MAX_WRONG) return { write: null, result: 'too_many' };
  return { write: { ...current, checks, updatedAt: now }, result: 'mismatch' };
}

/** The outcome of a cancel. */
export type VonageCancel = 'cancelled' | 'too_soon' | 'not_found';

/**
 * Cancels a request, as Vonage does: not in its first 30 seconds (status 19,
 * the request goes on), then at once (the request ends).
 */
export function cancelVonageVerification(current: SmsVerificationRow | null, now: number): SmsVerificationChange<VonageCancel> {
  if (!current) return { result: 'not_found' };
  if (now - current.createdAt < VONAGE_CANCEL_AFTER_MS) return { result: 'too_soon' };
  return { write: null, result: 'cancelled' };
}
