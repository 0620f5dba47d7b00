/**
 * Twilio Verify's state on PostgreSQL (twin of `../sqlite/sms-verifications.ts`):
 * a check that lands on any node reads the verification under its row lock,
 * so racing checks are counted one by one and a code is approved once.
 *
 * @packageDocumentation
 */
import type { SmsVerificationStore } from '../contract/types.ts';
import { VERIFICATION_COLUMNS, VERIFICATION_UPSERT, keyColumn, toSmsVerification, toSmsVerifyService, verificationValues } from '../contract/sms-verification-rows.ts';
import { mapRow } from './database.ts';
import type { PgSql } from './database.ts';

/** The SMS verification queries of a PostgreSQL store. */
export function createPostgresSmsVerifications(sql: PgSql): SmsVerificationStore {
  return {
    async findSmsVerification(key, now) {
      const { column, value } = keyColumn(key);
      return mapRow(await sql.get(`SELECT * FROM sms_verifications WHERE service_sid = $1 AND ${column} = $2 AND expires_at > $3`, key.serviceSid, value, now), toSmsVerification);
    },
    async changeSmsVerification(key, now, maxPerInbox, change) {
      return sql.transaction(async (tx) => {
        const { column, value } = keyColumn(key);
        const current = mapRow(await tx.get(`SELECT * FROM sms_verifications WHERE service_sid = $1 AND ${column} = $2 AND expires_at > $3 FOR UPDATE`, key.serviceSid, value, now), toSmsVerification);
        const { write, result } = change(current);
        if (write === null && current) await tx.run('DELETE FROM sms_verifications WHERE sid = $1', current.sid);
        if (write) {
          await tx.run('DELETE FROM sms_verifications WHERE expires_at <= $1', now);
          await tx.run(`INSERT INTO sms_verifications (${VERIFICATION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ${VERIFICATION_UPSERT}`, ...verificationValues(write));
          await tx.run(
            'DELETE FROM sms_verifications WHERE inbox_id = $1 AND sid NOT IN (SELECT sid FROM sms_verifications WHERE inbox_id = $1 ORDER BY created_at DESC, sid DESC LIMIT $2)',
            write.inboxId, maxPerInbox,
          );
        }
        return result;
      });
    },
    async putSmsVerifyService(service, maxPerOwner) {
      await sql.transaction(async (tx) => {
        await tx.run('INSERT INTO sms_verify_services (sid, owner_key, friendly_name, code_length, created_at) VALUES ($1, $2, $3, $4, $5)', service.sid, service.ownerKey, service.friendlyName, service.codeLength, service.createdAt);
        await tx.run(
          'DELETE FROM sms_verify_services WHERE owner_key = $1 AND sid NOT IN (SELECT sid FROM sms_verify_services WHERE owner_key = $1 ORDER BY created_at DESC, sid DESC LIMIT $2)',
          service.ownerKey, maxPerOwner,
        );
      });
    },
    async findSmsVerifyService(sid) {
      return mapRow(await sql.get('SELECT * FROM sms_verify_services WHERE sid = $1', sid), toSmsVerifyService);
    },
  };
}
