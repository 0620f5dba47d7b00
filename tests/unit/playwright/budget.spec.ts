import { expect, test } from '@playwright/test';
import { MIN_WAIT_MS, UNBOUNDED_WAIT_MS, defaultWaitTimeout, teardownReserve } from '../../../src/playwright/budget.ts';

test.describe('the default wait timeout', () => {
  const table: Array<[string, Parameters<typeof defaultWaitTimeout>[0], number]> = [
    ['is the remaining time minus a 10 % reserve', { testTimeout: 30_000, elapsed: 4_000 }, 23_000],
    ['keeps at least 500 ms for teardown in a short test', { testTimeout: 3_000, elapsed: 0 }, 2_500],
    ['keeps at most 5 s for teardown in a long test', { testTimeout: 120_000, elapsed: 10_000 }, 105_000],
    ['is the waitTimeout option when that is smaller', { testTimeout: 30_000, elapsed: 0, waitTimeout: 5_000 }, 5_000],
    ['is the remaining time when the waitTimeout option is larger', { testTimeout: 30_000, elapsed: 20_000, waitTimeout: 60_000 }, 7_000],
    ['is the waitTimeout option when the test has no timeout', { testTimeout: 0, elapsed: 99_000, waitTimeout: 8_000 }, 8_000],
    ['is a large bound when neither the test nor the option limits it', { testTimeout: 0, elapsed: 0 }, UNBOUNDED_WAIT_MS],
    ['treats waitTimeout 0 as no limit of its own', { testTimeout: 0, elapsed: 0, waitTimeout: 0 }, UNBOUNDED_WAIT_MS],
    ['still gives a short look when the budget is spent', { testTimeout: 5_000, elapsed: 6_000 }, MIN_WAIT_MS],
  ];
  for (const [name, input, expected] of table) {
    test(name, () => {
      expect(defaultWaitTimeout(input)).toBe(expected);
    });
  }
});

test('a test without a timeout keeps no teardown reserve', () => {
  expect(teardownReserve(0)).toBe(0);
});
