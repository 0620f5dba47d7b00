import { test, expect, expectError, KEY_A, KEY_B } from './fixtures.ts';

test.describe('with 3 requests per minute', () => {
  test.use({ serverOptions: { rateLimit: 3 } });

  test('the fourth request in a minute is 429 rate_limited with Retry-After, until the window resets', async ({ api, clock }) => {
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 3; i++) {
      const res = await api('GET', '/domains', { bearer: KEY_A });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      remaining.push(res.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    clock.advance(20_000);
    const refused = await api('GET', '/domains', { bearer: KEY_A });
    expectError(refused, 429, 'rate_limited');
    expect(refused.headers.get('retry-after')).toBe('40');
    expect(refused.headers.get('x-ratelimit-reset')).toBe('40');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    clock.advance(40_000);
    const again = await api('GET', '/domains', { bearer: KEY_A });
    expect(again.status).toBe(200);
    expect(again.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  test('each credential has its own allowance, and anonymous callers share their address\'s', async ({ api }) => {
    for (let i = 0; i < 3; i++) await api('GET', '/me', { bearer: KEY_A });
    expectError(await api('GET', '/me', { bearer: KEY_A }), 429, 'rate_limited');
    expect((await api('GET', '/me', { bearer: KEY_B })).status).toBe(200);
    const inbox = (await api('POST', '/inboxes')).body.data;
    expect((await api('GET', '/me', { inboxToken: inbox.token })).status).toBe(200);
    await api('GET', '/me');
    await api('GET', '/me');
    expectError(await api('GET', '/me'), 429, 'rate_limited');
  });

  test('requests with an invalid credential count against the client address, so guessing is limited', async ({ api }) => {
    for (let i = 0; i < 3; i++) expectError(await api('GET', '/me', { bearer: `tm_guess${i}guessguessguessguess` }), 401, 'unauthorized');
    expectError(await api('GET', '/me', { bearer: 'tm_guess4guessguessguessguess' }), 429, 'rate_limited');
    expectError(await api('GET', '/me'), 429, 'rate_limited');
  });
});

test.describe('with rate limiting off', () => {
  test.use({ serverOptions: { rateLimit: false } });

  test('requests are never refused and report the "off" sentinel: X-RateLimit-Limit, -Remaining and -Reset all 0', async ({ api }) => {
    for (let i = 0; i < 50; i++) {
      const res = await api('GET', i % 2 ? '/domains' : '/nowhere');
      expect(res.status).toBe(i % 2 ? 200 : 404);
      expect([res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining'), res.headers.get('x-ratelimit-reset')]).toEqual(['0', '0', '0']);
      expect(res.headers.get('retry-after')).toBeNull();
    }
    expect((await api('GET', '/me')).body.data.plan.entitlements.requestsPerMinute).toBeNull();
  });
});
