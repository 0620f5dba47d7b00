import { test, expect } from '@playwright/test';
import { createRateLimiter, rateLimitHeaders } from '../../../src/server/http/ratelimit.ts';
import { createSqliteRateLimits } from '../../../src/server/storage/sqlite/ratelimits.ts';

test('requests within the allowance pass and count down the remaining ones', async () => {
  const limiter = createRateLimiter(createSqliteRateLimits(), 60);
  const t = 1_000_000;
  expect(await limiter.hit('a', 3, t)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 60 });
  expect((await limiter.hit('a', 3, t + 1000)).remaining).toBe(1);
  expect(await limiter.hit('a', 3, t + 2000)).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 58 });
});

test('the request over the allowance is refused until the window ends, then allowed again', async () => {
  const limiter = createRateLimiter(createSqliteRateLimits(), 60);
  const t = 5_000_000;
  for (let i = 0; i < 2; i++) await limiter.hit('a', 2, t);
  const refused = await limiter.hit('a', 2, t + 30_500);
  expect(refused).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 30 });
  expect(rateLimitHeaders(refused)['Retry-After']).toBe('30');
  expect(await limiter.hit('a', 2, t + 60_000)).toMatchObject({ allowed: true, remaining: 1 });
});

test('each key has its own allowance', async () => {
  const limiter = createRateLimiter(createSqliteRateLimits(), 60);
  await limiter.hit('a', 1, 0);
  expect((await limiter.hit('a', 1, 0)).allowed).toBe(false);
  expect((await limiter.hit('b', 1, 0)).allowed).toBe(true);
});

test('expired windows are pruned once many keys are tracked, without losing live ones', async () => {
  const limiter = createRateLimiter(createSqliteRateLimits(10), 60);
  for (let i = 0; i < 10; i++) await limiter.hit(`old${i}`, 5, 0);
  await limiter.hit('live', 1, 59_000);
  // A new key at t=61s prunes the old windows; the live one keeps its count.
  await limiter.hit('new', 5, 61_000);
  expect((await limiter.hit('live', 1, 61_000)).allowed).toBe(false);
});

test('allowed responses carry the three rate-limit headers and no Retry-After', async () => {
  const headers = rateLimitHeaders({ allowed: true, limit: 10, remaining: 9, resetSeconds: 60 });
  expect(headers).toEqual({ 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '9', 'X-RateLimit-Reset': '60' });
});
