/**
 * The row readers of the `sms_verifications` and `sms_verify_services`
 * tables, the same on both dialects, and the bounds' shared SQL parts.
 *
 * @packageDocumentation
 */
import { json, num, rowMapper, text } from './rows.ts';
import type { SmsVerificationKey, SmsVerificationRow, SmsVerifyServiceRow } from './types.ts';

/** An `sms_verifications` row as a {@link SmsVerificationRow}. */
export const toSmsVerification = rowMapper<SmsVerificationRow>({
  sid: text,
  inboxId: text,
  serviceSid: text,
  accountSid: text,
  to: ['to_number', text],
  channel: text,
  code: text,
  checks: num,
  sends: (value) => json<number[]>(value),
  createdAt: num,
  updatedAt: num,
  expiresAt: num,
});

/** An `sms_verify_services` row as a {@link SmsVerifyServiceRow}. */
export const toSmsVerifyService = rowMapper<SmsVerifyServiceRow>({
  sid: text,
  ownerKey: text,
  friendlyName: text,
  codeLength: num,
  createdAt: num,
});

/** The column and value that find a verification: its number or its sid (with its service). */
export function keyColumn(key: SmsVerificationKey): { column: 'to_number' | 'sid'; value: string } {
  return 'to' in key ? { column: 'to_number', value: key.to } : { column: 'sid', value: key.sid };
}

/** The values of a row in the column order of {@link VERIFICATION_COLUMNS}. */
export function verificationValues(row: SmsVerificationRow): unknown[] {
  return [row.sid, row.inboxId, row.serviceSid, row.accountSid, row.to, row.channel, row.code, row.checks, JSON.stringify(row.sends), row.createdAt, row.updatedAt, row.expiresAt];
}

/** The columns of `sms_verifications`, in the order of {@link verificationValues}. */
export const VERIFICATION_COLUMNS = 'sid, inbox_id, service_sid, account_sid, to_number, channel, code, checks, sends, created_at, updated_at, expires_at';

/** Replacing the service and number's verification (the sid changes when a new one starts). */
export const VERIFICATION_UPSERT = `ON CONFLICT (service_sid, to_number) DO UPDATE SET sid = excluded.sid, inbox_id = excluded.inbox_id,
  account_sid = excluded.account_sid, channel = excluded.channel, code = excluded.code, checks = excluded.checks, sends = excluded.sends,
  created_at = excluded.created_at, updated_at = excluded.updated_at, expires_at = excluded.expires_at`;
