/**
 * The per-address bound on SMTP AUTH guesses, on a fake clock: the spacing of
 * an address's checks doubles with each failure up to its ceiling, attempts
 * queued past the ceiling are refused, and failures age out of the window.
 */
import { test, expect } from '@playwright/test';
import { DEFAULT_AUTH_LIMITS, createAuthThrottle } from '../../../src/server/smtp/auth-throttle.ts';

test('each failure doubles the wait before the address\'s next AUTH check, from 250 ms up to 30 s', () => {
  let now = 1_000_000;
  const throttle = createAuthThrottle(DEFAULT_AUTH_LIMITS, () => now);
  const waits: number[] = [];
  for (let i = 0; i < 10; i++) {
    const turn = throttle.turn('198.51.100.7');
    if (!('waitMs' in turn)) throw new Error(`refused: ${turn.refusal}`);
    waits.push(turn.waitMs);
    now += turn.waitMs;
    throttle.failed('198.51.100.7');
  }
  expect(waits).toEqual([0, 250, 500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
});

test('attempts from one address on many connections are spaced one after another, and one queued past 30 s is refused naming the address', () => {
  const now = 1_000_000;
  const throttle = createAuthThrottle({ ...DEFAULT_AUTH_LIMITS, failureDelayMs: 10_000 }, () => now);
  expect(throttle.turn('198.51.100.7')).toEqual({ waitMs: 0 });
  throttle.failed('198.51.100.7');
  expect([throttle.turn('198.51.100.7'), throttle.turn('198.51.100.7'), throttle.turn('198.51.100.7')]).toEqual([{ waitMs: 10_000 }, { waitMs: 20_000 }, { waitMs: 30_000 }]);
  const refused = throttle.turn('198.51.100.7');
  expect(refused).toEqual({ refusal: '4.7.0 Too many failed AUTH attempts from your address 198.51.100.7 (1 in 600 s): try again in 40 s' });
  expect(throttle.turn('203.0.113.9')).toEqual({ waitMs: 0 });
});

test('failures older than the window no longer count against the address', () => {
  let now = 1_000_000;
  const throttle = createAuthThrottle(DEFAULT_AUTH_LIMITS, () => now);
  for (let i = 0; i < 5; i++) {
    throttle.turn('198.51.100.7');
    throttle.failed('198.51.100.7');
  }
  now += 600_001;
  expect(throttle.turn('198.51.100.7')).toEqual({ waitMs: 0 });
});

test('the addresses tracked are bounded: past the bound the least recently seen is forgotten', () => {
  const now = 1_000_000;
  const throttle = createAuthThrottle({ ...DEFAULT_AUTH_LIMITS, maxAddresses: 3 }, () => now);
  for (const address of ['a', 'b', 'c', 'd']) {
    throttle.turn(address);
    throttle.failed(address);
  }
  expect(throttle.delayOf('a')).toBe(0);
  expect(throttle.delayOf('d')).toBe(250);
});
