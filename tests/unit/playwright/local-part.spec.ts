import { expect, test } from '@playwright/test';
import { localPartFor, randomSuffix, slugify } from '../../../src/playwright/local-part.ts';

/** The API's rule for a local part (CreateInboxRequest). */
const VALID = /^[A-Za-z0-9](?:[A-Za-z0-9._+-]*[A-Za-z0-9_+-])?$/;

test('a local part names the test and the worker and ends in a random suffix', () => {
  expect(localPartFor({ title: 'Signs up with a link', workerIndex: 3, random: 'k2x9q1' })).toBe('signs-up-with-a-link-w3-k2x9q1');
});

test('a retry and a second inbox of the same test are told apart', () => {
  expect(localPartFor({ title: 'resets', workerIndex: 0, retry: 2, sequence: 1, random: 'aaaaaa' })).toBe('resets-w0-r2-n2-aaaaaa');
});

test('titles with accents, punctuation and emoji become a short ASCII slug', () => {
  expect(slugify('Ünïcödé — "quoted" & 🎉 déjà vu')).toBe('unicode-quoted-deja-vu');
  expect(slugify('🎉🎉')).toBe('test');
  expect(slugify('a'.repeat(80))).toHaveLength(32);
  expect(slugify(`${'a'.repeat(31)} b`)).toBe('a'.repeat(31));
});

test('every generated local part is valid for the API and at most 64 characters', () => {
  const titles = ['', '-', '...', 'x', 'Ends with a dash -', 'a'.repeat(200), '日本語のテスト', 'mixed CASE 123 !!'];
  for (const title of titles) {
    for (const workerIndex of [0, 9, 123]) {
      const localPart = localPartFor({ title, workerIndex, retry: 3, sequence: 12 });
      expect(localPart).toMatch(VALID);
      expect(localPart.length).toBeLessThanOrEqual(64);
    }
  }
});

test('random suffixes are six base-36 characters and differ', () => {
  const suffixes = new Set(Array.from({ length: 200 }, () => randomSuffix()));
  for (const suffix of suffixes) expect(suffix).toMatch(/^[a-z0-9]{6}$/);
  expect(suffixes.size).toBeGreaterThan(190);
});
