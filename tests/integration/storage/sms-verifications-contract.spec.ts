/**
 * The store's part in Twilio Verify (issue 39), on every backend: one live
 * verification per service and number, changed atomically (racing checks
 * are each counted, a code is approved once), read as none once expired,
 * bounded per phone and gone with it; Verify services bounded per caller.
 */
import { test, expect } from '@playwright/test';
import { BACKENDS } from '../../support/backends.ts';
import type { SmsVerificationRow, Store } from '../../../src/server/storage/contract/types.ts';
import { CODE_TTL_MS, MAX_CHECKS, checkVerification, startVerification } from '../../../src/server/sms/twilio-verify.ts';

const T0 = 1_800_000_000_000;
const SERVICE = { sid: `VA${'1'.repeat(32)}`, friendlyName: 'Acme', codeLength: 6 };

for (const backend of BACKENDS) {
  test.describe(`the ${backend.name} store`, () => {
    test.skip(backend.skip !== null, backend.skip ?? '');
    let store: Store;
    let close: () => Promise<void>;
    let domainId: string;

    test.beforeEach(async () => {
      const handle = await backend.open();
      store = handle.store;
      close = handle.close;
      domainId = (await store.syncDomains(['inboxkit.test']))[0]!.id;
    });
    test.afterEach(async () => close());

    const phone = async (number: string) => {
      const created = await store.createInbox({ localPart: number, domainId, ownerUserId: null, label: null, tokenHash: `h-${number}`, createdAt: T0, expiresAt: null });
      if (created === 'address_taken') throw new Error('taken');
      return created;
    };
    const start = (inboxId: string, to: string, now: number, service = SERVICE) =>
      store.changeSmsVerification({ serviceSid: service.sid, to }, now, 20, (current) => startVerification(current, { service, accountSid: 'AC1', to, channel: 'sms', inboxId, now }));
    const check = (to: string, code: string, now: number) => store.changeSmsVerification({ serviceSid: SERVICE.sid, to }, now, 20, (current) => checkVerification(current, code, now));

    test('a resend keeps the code and sid, a check by number or sid finds it, and the right code approves it once', async () => {
      const p = await phone('+12025550101');
      const first = await start(p.id, '+12025550101', T0);
      const again = await start(p.id, '+12025550101', T0 + 1000);
      if (first === 'too_many' || again === 'too_many') throw new Error('too many');
      expect(again).toMatchObject({ sid: first.sid, code: first.code, sends: [T0, T0 + 1000] });
      expect((await store.findSmsVerification({ serviceSid: SERVICE.sid, sid: first.sid }, T0 + 2000))?.to).toBe('+12025550101');
      expect(await check('+12025550101', first.code === '000000' ? '111111' : '000000', T0 + 2000)).toMatchObject({ status: 'pending', checks: 1 });
      expect(await check('+12025550101', first.code, T0 + 3000)).toMatchObject({ status: 'approved', checks: 2 });
      expect(await check('+12025550101', first.code, T0 + 4000)).toBeNull();
    });

    test('racing checks are each counted: a verification takes five, then refuses', async () => {
      const p = await phone('+12025550102');
      const started = await start(p.id, '+12025550102', T0);
      if (started === 'too_many') throw new Error('too many');
      const wrong = started.code === '999999' ? '888888' : '999999';
      const results = await Promise.all(Array.from({ length: MAX_CHECKS + 3 }, () => check('+12025550102', wrong, T0 + 1)));
      expect(results.filter((r) => r === 'too_many')).toHaveLength(3);
      expect(await check('+12025550102', started.code, T0 + 2)).toBe('too_many');
    });

    test('an expired verification reads as none, and a new start makes a new code', async () => {
      const p = await phone('+12025550103');
      const first = (await start(p.id, '+12025550103', T0)) as SmsVerificationRow;
      expect(await store.findSmsVerification({ serviceSid: SERVICE.sid, to: '+12025550103' }, T0 + CODE_TTL_MS)).toBeNull();
      expect(await check('+12025550103', first.code, T0 + CODE_TTL_MS)).toBeNull();
      const second = (await start(p.id, '+12025550103', T0 + CODE_TTL_MS)) as SmsVerificationRow;
      expect(second.sid).not.toBe(first.sid);
      expect(second.sends).toEqual([T0 + CODE_TTL_MS]);
    });

    test('a phone keeps its newest verifications within the bound, and loses them with its inbox', async () => {
      const p = await phone('+12025550104');
      for (let i = 0; i < 25; i++) {
        const service = { ...SERVICE, sid: `VA${String(i).padStart(32, '0')}` };
        await start(p.id, '+12025550104', T0 + i, service);
      }
      const kept = await Promise.all(Array.from({ length: 25 }, (_, i) => store.findSmsVerification({ serviceSid: `VA${String(i).padStart(32, '0')}`, to: '+12025550104' }, T0 + 100)));
      expect(kept.map((v) => v !== null)).toEqual([...Array<boolean>(5).fill(false), ...Array<boolean>(20).fill(true)]);
      await store.deleteInbox(p.id);
      expect(await store.findSmsVerification({ serviceSid: `VA${String(24).padStart(32, '0')}`, to: '+12025550104' }, T0 + 100)).toBeNull();
    });

    test('Verify services are found by sid, and each caller keeps its newest within the bound', async () => {
      for (let i = 0; i < 4; i++) await store.putSmsVerifyService({ sid: `VA${String(i).padStart(32, 'a')}`, ownerKey: 'user:u1', friendlyName: `S${i}`, codeLength: 6, createdAt: T0 + i }, 3);
      await store.putSmsVerifyService({ sid: `VA${'b'.repeat(32)}`, ownerKey: 'anonymous', friendlyName: 'Other', codeLength: 8, createdAt: T0 }, 3);
      expect(await store.findSmsVerifyService(`VA${String(0).padStart(32, 'a')}`)).toBeNull();
      expect(await store.findSmsVerifyService(`VA${String(3).padStart(32, 'a')}`)).toMatchObject({ friendlyName: 'S3', codeLength: 6 });
      expect(await store.findSmsVerifyService(`VA${'b'.repeat(32)}`)).toMatchObject({ ownerKey: 'anonymous', codeLength: 8 });
    });
  });
}
