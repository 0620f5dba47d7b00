/**
 * Fair shares of a bounded pool (issue 36): each caller may hold only its
 * share, guests are charged to their address as well as their credential, and
 * users are charged to their credential alone, so a guest on one address never
 * takes a user's slots there (every local test shares 127.0.0.1).
 */
import { test, expect } from '@playwright/test';
import { createFairShare, shareCallerOf } from '../../../src/server/auth/fair-share.ts';
import { HttpError } from '../../../src/server/http/errors.ts';
import { ON_BEHALF_HEADER, createOnBehalf } from '../../../src/server/http/on-behalf.ts';

const LIMITS = { name: 'spam checks', total: 6, perCaller: 3 };
const guestWithToken = (n: number, address = '127.0.0.1') => shareCallerOf({ kind: 'inboxToken', inboxId: `ibx_${n}`, tokenHash: `t${n}` }, address);
const anonymous = (address = '127.0.0.1') => shareCallerOf({ kind: 'anonymous', clientAddress: address }, address);
const user = (keyHash: string) => shareCallerOf({ kind: 'apiKey', keyHash, user: { id: `usr_${keyHash}` } } as never, '127.0.0.1');

function refusal(action: () => unknown): HttpError {
  try {
    action();
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

test('a guest holds at most its share, however many inbox tokens it mints; the refusal names the share and has Retry-After', () => {
  const pool = createFairShare(LIMITS);
  for (let i = 0; i < 3; i++) pool.acquire(guestWithToken(i));
  const error = refusal(() => pool.acquire(guestWithToken(99)));
  expect(error.code).toBe('limit_reached');
  expect(error.message).toBe('3 spam checks of guests at 127.0.0.1 are already running, the share one caller may hold (of 6 per node); try again when one has answered.');
  expect(error.headers).toEqual({ 'Retry-After': '1' });
  expect(() => pool.acquire(anonymous())).toThrow(/guests at 127\.0\.0\.1/);
  expect(pool.inUse()).toBe(3);
});

test('a user on the same address as a guest who used up its share still gets slots: users are charged to their credential', () => {
  const pool = createFairShare(LIMITS);
  for (let i = 0; i < 3; i++) pool.acquire(guestWithToken(i));
  const releases = [pool.acquire(user('a')), pool.acquire(user('a')), pool.acquire(user('a'))];
  expect(refusal(() => pool.acquire(user('a'))).message).toContain('3 spam checks of this credential are already running, the share one caller may hold');
  // The pool is full now: anyone else is told the node's bound.
  expect(refusal(() => pool.acquire(user('b'))).message).toBe('6 spam checks are already running on this node, its bound; try again when one has answered.');
  releases[0]!();
  releases[0]!();
  expect(pool.inUse()).toBe(5);
  pool.acquire(user('b'));
});

test('guests on another address have their own share', () => {
  const pool = createFairShare(LIMITS);
  for (let i = 0; i < 3; i++) pool.acquire(anonymous('192.0.2.1'));
  expect(() => pool.acquire(anonymous('192.0.2.1'))).toThrow(/guests at 192\.0\.2\.1/);
  pool.acquire(anonymous('192.0.2.2'));
});

test('a slot given back is free again, and giving it back twice frees one slot only', () => {
  const pool = createFairShare(LIMITS);
  const held = [0, 1, 2].map((i) => pool.acquire(guestWithToken(i)));
  held[1]!();
  held[1]!();
  expect(pool.inUse()).toBe(2);
  pool.acquire(guestWithToken(3));
  expect(() => pool.acquire(guestWithToken(4))).toThrow(/share one caller may hold/);
});

test.describe('the on-behalf seal of a mount\'s calls', () => {
  test('a header made by this app names the caller\'s address; a forged, altered or foreign one names nothing', () => {
    const onBehalf = createOnBehalf();
    const header = onBehalf.headersFor('192.0.2.7')[ON_BEHALF_HEADER]!;
    expect(onBehalf.verify(header)).toBe('192.0.2.7');
    expect(onBehalf.verify(header.replace('192.0.2.7', '192.0.2.8'))).toBeNull();
    expect(onBehalf.verify('192.0.2.7 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).toBeNull();
    expect(onBehalf.verify('192.0.2.7')).toBeNull();
    expect(onBehalf.verify(undefined)).toBeNull();
    expect(createOnBehalf().verify(header)).toBeNull();
  });
});
