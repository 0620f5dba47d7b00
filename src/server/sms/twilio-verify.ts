/**
 * Twilio Verify v2, as its REST API documents it: a verification makes a
 * code, texts it to the number ("Your <service> verification code is:
 * 123456") and checks it. The pending verifications live in memory, per node
 * and per app, bounded: a code lives 10 minutes (Twilio's default), a
 * verification takes 5 checks and a number 5 sends in that time, and at most
 * {@link MAX_PENDING} are held at once.
 *
 * @packageDocumentation
 */
import { randomInt } from 'node:crypto';
import { twilioSid } from './twilio.ts';

/** How long a code is valid (Twilio's default). */
export const CODE_TTL_MS = 10 * 60_000;
/** Checks a verification takes before 60202. */
export const MAX_CHECKS = 5;
/** Sends a number takes within {@link CODE_TTL_MS} before 60203. */
export const MAX_SENDS = 5;
/** Pending verifications held by one node; past it the oldest go. */
export const MAX_PENDING = 10_000;

/** One verification. */
export interface Verification {
  sid: string;
  serviceSid: string;
  accountSid: string;
  to: string;
  channel: string;
  code: string;
  status: 'pending' | 'approved' | 'canceled';
  checks: number;
  sends: number[];
  createdAt: number;
  updatedAt: number;
}

/** A Verify service as `POST /v2/Services` made it. */
export interface VerifyService {
  sid: string;
  friendlyName: string;
  codeLength: number;
}

/** The verifications and services of one app. */
export class VerifyState {
  readonly #pending = new Map<string, Verification>();
  readonly #services = new Map<string, VerifyService>();

  /** Registers a service (bounded like the verifications). */
  addService(friendlyName: string, codeLength: number): VerifyService {
    const service = { sid: twilioSid('VA'), friendlyName, codeLength };
    if (this.#services.size >= MAX_PENDING) this.#services.delete(this.#services.keys().next().value as string);
    this.#services.set(service.sid, service);
    return service;
  }

  /** A service by sid; one never created here is a service of its own name ("Verify") with 6-digit codes, as the app's configured sid. */
  service(sid: string): VerifyService {
    return this.#services.get(sid) ?? { sid, friendlyName: 'Verify', codeLength: 6 };
  }

  #key(serviceSid: string, to: string): string {
    return `${serviceSid} ${to}`;
  }

  #sweep(now: number): void {
    for (const [key, v] of this.#pending) if (v.createdAt + CODE_TTL_MS <= now || v.status !== 'pending') this.#pending.delete(key);
    while (this.#pending.size >= MAX_PENDING) this.#pending.delete(this.#pending.keys().next().value as string);
  }

  /**
   * Starts (or resends) the verification of `to`: the pending one keeps its
   * code, as Twilio's does; 'too_many' past {@link MAX_SENDS} sends.
   */
  start(service: VerifyService, accountSid: string, to: string, channel: string, now: number): Verification | 'too_many' {
    const key = this.#key(service.sid, to);
    const pending = this.#pending.get(key);
    if (pending && pending.status === 'pending' && pending.createdAt + CODE_TTL_MS > now) {
      pending.sends = pending.sends.filter((t) => t + CODE_TTL_MS > now);
      if (pending.sends.length >= MAX_SENDS) return 'too_many';
      pending.sends.push(now);
      pending.updatedAt = now;
      return pending;
    }
    this.#sweep(now);
    const code = String(randomInt(10 ** service.codeLength)).padStart(service.codeLength, '0');
    const verification: Verification = { sid: twilioSid('VE'), serviceSid: service.sid, accountSid, to, channel, code, status: 'pending', checks: 0, sends: [now], createdAt: now, updatedAt: now };
    this.#pending.set(key, verification);
    return verification;
  }

  /** The pending verification of a number or sid, or null. */
  find(serviceSid: string, by: { to?: string; sid?: string }, now: number): Verification | null {
    let found: Verification | null = null;
    if (by.to) found = this.#pending.get(this.#key(serviceSid, by.to)) ?? null;
    else if (by.sid) found = [...this.#pending.values()].find((v) => v.sid === by.sid && v.serviceSid === serviceSid) ?? null;
    return found && found.createdAt + CODE_TTL_MS > now ? found : null;
  }

  /** Checks a code: approved (and gone) when it matches, 'too_many' past {@link MAX_CHECKS}. */
  check(verification: Verification, code: string, now: number): Verification | 'too_many' {
    if (verification.checks >= MAX_CHECKS) return 'too_many';
    verification.checks++;
    verification.updatedAt = now;
    if (code === verification.code) {
      verification.status = 'approved';
      this.#pending.delete(this.#key(verification.serviceSid, verification.to));
    }
    return verification;
  }
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
