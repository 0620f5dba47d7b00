import { test, expect } from '@playwright/test';
import { bodyMismatches, describeCriteria, matchesPattern, needsFullMessage, summaryMismatches, toCriteria } from '../../../src/client/internal/criteria.ts';
import { pollDelay } from '../../../src/client/wait/feed.ts';
import { InboxkitError } from '../../../src/client/index.ts';
import type { MessageSummary } from '../../../src/client/index.ts';

function summary(overrides: Partial<MessageSummary> = {}): MessageSummary {
  return {
    id: 'm1',
    inboxId: 'i1',
    seq: 1,
    from: { address: 'no-reply@acme.example', name: 'Acme Accounts' },
    to: [{ address: 'ada@inbox.test', name: 'Ada Lovelace' }],
    cc: [{ address: 'audit@inbox.test', name: '' }],
    subject: 'Confirm your email address',
    preview: '',
    receivedAt: '2026-01-02T03:04:05.678Z',
    size: 100,
    hasAttachments: false,
    ...overrides,
  };
}

test.describe('string and RegExp patterns', () => {
  const table: Array<[string | RegExp, string, boolean]> = [
    ['confirm', 'Confirm your email', true],
    ['CONFIRM YOUR', 'Confirm your email', true],
    ['confirm your email', 'Confirm\n   your\temail', true],
    ['confirm  your', 'Confirm your email', true],
    ['reset', 'Confirm your email', false],
    [/^Confirm/, 'Confirm your email', true],
    [/^confirm/, 'Confirm your email', false],
    [/^confirm/i, 'Confirm your email', true],
    [/email$/, 'Confirm your email', true],
    ['', 'anything', true],
  ];
  for (const [pattern, value, expected] of table) {
    test(`${String(pattern)} against ${JSON.stringify(value)} is ${expected ? 'a match' : 'no match'}`, () => {
      expect(matchesPattern(pattern, value)).toBe(expected);
    });
  }

  test('a global RegExp matches the same way every time (its lastIndex is not used)', () => {
    const re = /confirm/gi;
    expect([1, 2, 3].map(() => matchesPattern(re, 'Confirm your email'))).toEqual([true, true, true]);
    expect(re.lastIndex).toBe(0);
  });
});

test.describe('summary-level criteria', () => {
  test('subject, from and to all have to match (AND), and each failure is named', () => {
    const failed = summaryMismatches({ subject: /Reset/, from: 'billing@', to: 'bob@' }, summary());
    expect(failed).toEqual([
      'subject "Confirm your email address" did not match /Reset/',
      'from "Acme Accounts <no-reply@acme.example>" did not match "billing@"',
      'to "Ada Lovelace <ada@inbox.test>, audit@inbox.test" did not match "bob@"',
    ]);
  });

  test('from matches the address, the display name or "Name <address>"', () => {
    for (const from of ['no-reply@acme.example', 'acme accounts', 'Accounts <no-reply', /^no-reply@/, /^Acme Accounts$/]) {
      expect(summaryMismatches({ from }, summary()), String(from)).toEqual([]);
    }
  });

  test('to matches any To or Cc recipient, by address or name', () => {
    for (const to of ['ada@inbox.test', 'Lovelace', 'audit@inbox.test', /^audit@/]) {
      expect(summaryMismatches({ to }, summary()), String(to)).toEqual([]);
    }
  });

  test('a message without a sender fails a from criterion and says so', () => {
    expect(summaryMismatches({ from: 'x' }, summary({ from: null }))).toEqual(['from (no sender) did not match "x"']);
  });

  test('an empty display name does not make every string match', () => {
    expect(summaryMismatches({ to: 'nobody' }, summary({ to: [{ address: 'a@b.test', name: '' }], cc: [] }))).toHaveLength(1);
  });

  test('body criteria are not checked on the summary', () => {
    expect(summaryMismatches({ text: 'nowhere', html: 'nowhere' }, summary())).toEqual([]);
    expect(needsFullMessage({ subject: 'x', from: 'y', to: 'z' })).toBe(false);
    expect(needsFullMessage({ text: 'x' })).toBe(true);
    expect(needsFullMessage({ html: /x/ })).toBe(true);
    expect(needsFullMessage({ where: () => true })).toBe(true);
  });
});

test.describe('body criteria', () => {
  test('text and html are matched against the bodies, and a missing body is named', () => {
    const message = { text: 'Your code is 123456.\nIt expires soon.', html: null };
    expect(bodyMismatches({ text: 'code is 123456. it expires' }, message)).toEqual([]);
    expect(bodyMismatches({ text: /\b\d{6}\b/ }, message)).toEqual([]);
    expect(bodyMismatches({ text: 'password' }, message)).toEqual(['text "Your code is 123456. It expires soon." did not match "password"']);
    expect(bodyMismatches({ html: '<a' }, message)).toEqual(['the message has no html body to match "<a"']);
  });

  test('html is matched as markup, tags included', () => {
    expect(bodyMismatches({ html: '<a href="https://acme.example/confirm' }, { text: null, html: '<p><a href="https://acme.example/confirm?t=1">Go</a></p>' })).toEqual([]);
  });
});

test.describe('describeCriteria', () => {
  const table: Array<[Parameters<typeof describeCriteria>[0], string]> = [
    [undefined, 'any message'],
    [{}, 'any message'],
    [{ subject: /Confirm/, from: 'no-reply@acme.example' }, 'subject ~ /Confirm/ and from "no-reply@acme.example"'],
    [{ to: 'ada@inbox.test', text: /code/i, html: 'href' }, 'to "ada@inbox.test" and text ~ /code/i and html "href"'],
    [{ subject: 'Welcome', where: () => true }, 'subject "Welcome" and the predicate'],
    [() => true, 'a message the predicate accepts'],
    [{ subject: undefined, from: 'a' }, 'from "a"'],
  ];
  for (const [match, expected] of table) {
    test(`${JSON.stringify(match === undefined ? "nothing" : typeof match === "function" ? "a predicate" : Object.keys(match))} reads ${JSON.stringify(expected)}`, () => {
      expect(describeCriteria(match)).toBe(expected);
    });
  }

  test('keeps the fields in a fixed order whatever the object order', () => {
    expect(describeCriteria({ from: 'a', subject: 'b' })).toBe('subject "b" and from "a"');
  });
});

test.describe('criteria validation', () => {
  test('a misspelled criterion is refused with the list of valid ones', () => {
    expect(() => toCriteria({ subjet: 'x' } as never)).toThrow(/unknown criterion "subjet". The criteria are subject, from, to, text, html, where/);
  });

  test('a bare string or RegExp is refused with the fix', () => {
    expect(() => toCriteria('Welcome' as never)).toThrow(InboxkitError);
    expect(() => toCriteria('Welcome' as never)).toThrow(/write \{ subject: "Welcome" \}/);
    expect(() => toCriteria(/Welcome/ as never)).toThrow(/write \{ subject: \/Welcome\/ \}/);
  });

  test('a criterion of the wrong type is refused', () => {
    expect(() => toCriteria({ subject: 42 } as never)).toThrow(/"subject" must be a string .* or a RegExp; got number/);
    expect(() => toCriteria({ where: 'yes' } as never)).toThrow(/"where" must be a function/);
  });

  test('a predicate becomes the where criterion', () => {
    const predicate = () => true;
    expect(toCriteria(predicate)).toEqual({ where: predicate });
    expect(toCriteria(undefined)).toEqual({});
  });
});

test.describe('polling delay', () => {
  const intervals = [100, 250, 500, 1000];
  const table: Array<[string, number, Parameters<typeof pollDelay>[2], number]> = [
    ['first poll', 0, null, 100],
    ['second poll', 1, null, 250],
    ['the last delay repeats', 9, null, 1000],
    ['plenty of requests left', 2, { limit: 60, remaining: 50, reset: 30 }, 500],
    ['few left: spread over the window', 0, { limit: 60, remaining: 5, reset: 30 }, 6000],
    ['none left: wait for the reset', 0, { limit: 60, remaining: 0, reset: 12 }, 12_000],
    ['no headers', 0, { limit: null, remaining: null, reset: null }, 100],
  ];
  for (const [name, index, rateLimit, expected] of table) {
    test(`${name}: ${expected} ms`, () => {
      expect(pollDelay(intervals, index, rateLimit)).toBe(expected);
    });
  }
});
