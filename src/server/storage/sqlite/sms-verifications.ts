/**
 * Twilio Verify's state on SQLite: one write transaction reads a
 * verification, applies the caller's change and writes it, so two services
 * on one database file (or two requests) never both spend the same check.
 *
 * @packageDocumentation
 */
import type { SQLInputValue } from 'node:sqlite';
import type { SmsVerificationStore } from '../contract/types.ts';
import { VERIFICATION_COLUMNS, VERIFICATION_UPSERT, keyColumn, toSmsVerification, toSmsVerifyService, verificationValues } from '../contract/sms-verification-rows.ts';
import { mapRow } from './database.ts';
import type { Sql } from './database.ts';

/** The SMS verification queries of a SQLite store. */
export function createSqliteSmsVerifications(sql: Sql): SmsVerificationStore {
  const find: SmsVerificationStore['findSmsVerification'] = async (key, now) => {
    const { column, value } = keyColumn(key);
    return mapRow(sql.get(`SELECT * FROM sms_verifications WHERE service_sid = ? AND ${column} = ? AND expires_at > ?`, key.serviceSid, value, now), toSmsVerification);
  };
  return {
    findSmsVerification: find,
    async changeSmsVerification(key, now, maxPerInbox, change) {
      return sql.transaction(() => {
        const { column, value } = keyColumn(key);
        const current = mapRow(sql.get(`SELECT * FROM sms_verifications WHERE service_sid = ? AND ${column} = ? AND expires_at > ?`, key.serviceSid, value, now), toSmsVerification);
        const { write, result } = change(current);
        if (write === null && current) sql.run('DELETE FROM sms_verifications WHERE sid = ?', current.sid);
        if (write) {
          sql.run('DELETE FROM sms_verifications WHERE expires_at <= ?', now);
          sql.run(`INSERT INTO sms_verifications (${VERIFICATION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${VERIFICATION_UPSERT}`, ...(verificationValues(write) as SQLInputValue[]));
          sql.run(
            'DELETE FROM sms_verifications WHERE inbox_id = ? AND sid NOT IN (SELECT sid FROM sms_verifications WHERE inbox_id = ? ORDER BY created_at DESC, sid DESC LIMIT ?)',
            write.inboxId, write.inboxId, maxPerInbox,
          );
        }
        return result;
      });
    },
    async putSmsVerifyService(service, maxPerOwner) {
      sql.transaction(() => {
        sql.run('INSERT INTO sms_verify_services (sid, owner_key, friendly_name, code_length, created_at) VALUES (?, ?, ?, ?, ?)', service.sid, service.ownerKey, service.friendlyName, service.codeLength, service.createdAt);
        sql.run(
          'DELETE FROM sms_verify_services WHERE owner_key = ? AND sid NOT IN (SELECT sid FROM sms_verify_services WHERE owner_key = ? ORDER BY created_at DESC, sid DESC LIMIT ?)',
          service.ownerKey, service.ownerKey, maxPerOwner,
        );
      });
    },
    async findSmsVerifyService(sid) {
      return mapRow(sql.get('SELECT * FROM sms_verify_services WHERE sid = ?', sid), toSmsVerifyService);
    },
  };
}
