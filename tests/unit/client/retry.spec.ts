import { test, expect } from '@playwright/test';
import { backoffDelay, decideRetry, parseRetryAfter, DEFAULT_RETRY_POLICY } from '../../../src/client/internal/retry.ts';
import type { AttemptOutcome, RetryPolicy } from '../../../src/client/internal/retry.ts';

const policy: RetryPolicy = { maxRetries: 2, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };
const now = Date.parse('2026-01-01T00:00:00Z');
const status = (s: number, retryAfter?: string): AttemptOutcome => ({ kind: 'status', status: s, retryAfter: retryAfter ?? null });

// [method, outcome, retriesDone, expected retry?, expected delay (when fixed)]
const table: Array<[string, AttemptOutcome, number, boolean, number | null]> = [
  ['GET', { kind: 'connection' }, 0, true, null],
  ['GET', { kind: 'timeout' }, 0, true, null],
  ['HEAD', { kind: 'connection' }, 1, true, null],
  ['PUT', status(503), 0, true, null],
  ['DELETE', status(500), 0, true, null],
  ['OPTIONS', status(502), 0, true, null],
  ['GET', status(408), 0, true, null],
  ['GET', status(409), 0, true, null],
  ['GET', status(429), 0, true, null],
  ['GET', status(429, '2'), 0, true, 2000],
  ['GET', status(503, '0'), 0, true, 0],
  ['GET', status(429, 'Thu, 01 Jan 2026 00:00:03 GMT'), 0, true, 3000],
  ['GET', status(429, '6'), 0, false, null], // over maxRetryAfterMs
  ['GET', status(429, 'soon'), 0, true, null], // unreadable: backoff
  ['GET', status(400), 0, false, null],
  ['GET', status(401), 0, false, null],
  ['GET', status(403), 0, false, null],
  ['GET', status(404), 0, false, null],
  ['GET', status(413), 0, false, null],
  ['GET', status(503), 2, false, null], // retries used up
  ['POST', { kind: 'connection' }, 0, false, null],
  ['POST', status(503), 0, false, null],
  // 503 with Retry-After: the service did not do it (database unreachable) and asks for a retry.
  ['POST', status(503, '2'), 0, true, 2000],
  ['POST', status(429, '1'), 0, false, null],
  ['PATCH', { kind: 'timeout' }, 0, false, null],
  ['PATCH', status(500), 0, false, null],
  ['get', status(500), 0, true, null], // method case does not matter
];

for (const [method, outcome, retriesDone, retry, delay] of table) {
  const what = outcome.kind === 'status' ? `${outcome.status}${outcome.retryAfter ? ` with Retry-After ${outcome.retryAfter}` : ''}` : outcome.kind;
  test(`${method} after ${what} with ${retriesDone} retries done is ${retry ? '' : 'not '}retried`, () => {
    const decision = decideRetry({ method, outcome, retriesDone, policy, random: 0.5, now });
    expect(decision.retry, decision.reason).toBe(retry);
    if (decision.retry && delay !== null) expect(decision.delayMs).toBe(delay);
    if (decision.retry && delay === null) {
      expect(decision.delayMs).toBeGreaterThanOrEqual(0);
      expect(decision.delayMs).toBeLessThanOrEqual(policy.maxDelayMs);
    }
  });
}

test('no request is retried when retries are disabled', () => {
  expect(decideRetry({ method: 'GET', outcome: { kind: 'connection' }, retriesDone: 0, policy: null, random: 0, now }).retry).toBe(false);
});

test('backoff doubles per retry, stays within half and all of the step, and is capped', () => {
  expect(backoffDelay(policy, 0, 0)).toBe(50);
  expect(backoffDelay(policy, 0, 0.999)).toBeLessThanOrEqual(100);
  expect(backoffDelay(policy, 1, 0)).toBe(100);
  expect(backoffDelay(policy, 2, 0)).toBe(200);
  expect(backoffDelay(policy, 10, 0.999)).toBeLessThanOrEqual(1000);
  expect(backoffDelay(policy, 10, 0)).toBe(500);
  const delays = new Set([0, 0.25, 0.5, 0.75].map((r) => backoffDelay(policy, 1, r)));
  expect(delays.size).toBe(4); // jitter spreads clients apart
});

test('Retry-After is read as seconds or an HTTP date, and ignored when unreadable', () => {
  expect(parseRetryAfter('3', now)).toBe(3000);
  expect(parseRetryAfter('1.5', now)).toBe(1500);
  expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
  expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
  expect(parseRetryAfter('later', now)).toBeNull();
  expect(parseRetryAfter(undefined, now)).toBeNull();
  expect(parseRetryAfter('', now)).toBeNull();
});

test('the default policy retries twice', () => {
  expect(DEFAULT_RETRY_POLICY.maxRetries).toBe(2);
});
