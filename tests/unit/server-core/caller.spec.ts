/**
 * callerOf: the one rule every bound counts callers with.
 */
import { expect, test } from '@playwright/test';
import { callerOf, isSharedService, reachOf, shareKeysOf } from '../../../src/server/auth/caller.ts';
import { credentialKeyOf } from '../../../src/server/auth/caps.ts';
import { shareCallerOf } from '../../../src/server/auth/fair-share.ts';
import type { Principal } from '../../../src/server/auth/principal.ts';

const user = { id: 'usr_1', email: 'a@b.test', planId: 'premium' } as never;
const cappedSession: Principal = { kind: 'session', user, tokenHash: 's1', expiresAt: 0, key: { hash: 'k1', caps: { maxStreams: 2 } } };
const apiKey: Principal = { kind: 'apiKey', user, keyHash: 'k1', caps: { maxStreams: 2 } };

test('a session under a capped key is charged to the key by the rate limit, the stream caps, the check shares and every other bound', () => {
  const session = callerOf(cappedSession, '10.0.0.1');
  const key = callerOf(apiKey, '10.0.0.2');
  expect(session.key).toBe(key.key);
  expect(session.credential).toBe('key:k1');
  expect(credentialKeyOf(cappedSession)).toBe(credentialKeyOf(apiKey));
  expect(shareKeysOf(shareCallerOf(cappedSession, '10.0.0.1'))).toEqual(shareKeysOf(shareCallerOf(apiKey, '10.0.0.2')));
});

test('a session under a key without caps is charged to itself, and a guest to its credential and its address', () => {
  expect(callerOf({ kind: 'session', user, tokenHash: 's2', expiresAt: 0 }, '::1').key).toBe('session:s2');
  const guest = callerOf({ kind: 'inboxToken', inboxId: 'ibx_1', tokenHash: 't1' }, '10.0.0.3');
  expect(shareKeysOf(guest)).toEqual(['cred:inbox:t1', 'addr:10.0.0.3']);
  expect(callerOf({ kind: 'anonymous', clientAddress: '10.0.0.4' }, '10.0.0.4')).toMatchObject({ credential: null, key: 'addr:10.0.0.4', guest: true });
});

test('a service is shared when it is reachable from other machines or sits behind a trusted balancer, whatever its bind address', () => {
  const config = (host: string, trustProxy: string[] = [], smtpProxy: boolean | string[] = false) => ({ http: { host }, operations: { trustProxy, smtpProxy } });
  expect(isSharedService(config('127.0.0.1'))).toBe(false);
  expect(isSharedService(config('0.0.0.0'))).toBe(true);
  expect(isSharedService(config('127.0.0.1', ['127.0.0.1']))).toBe(true);
  expect(isSharedService(config('127.0.0.1', [], true))).toBe(true);
});

test('on a shared service an anonymous provider request reaches nothing, and a credential reaches only its own inboxes', () => {
  const anonymous: Principal = { kind: 'anonymous', clientAddress: '10.0.0.5' };
  expect(reachOf(anonymous, true)).toBeNull();
  expect(reachOf(anonymous, false)).toEqual({ kind: 'any' });
  expect(reachOf(apiKey, true)).toEqual({ kind: 'user', userId: 'usr_1' });
  expect(reachOf({ kind: 'inboxToken', inboxId: 'ibx_9', tokenHash: 't' }, true)).toEqual({ kind: 'inbox', inboxId: 'ibx_9' });
});
