/**
 * Segments as carriers count them: GSM-7 septets with the extension table
 * counting two, UCS-2 code units with an emoji counting two, neither split.
 */
import { expect, test } from '@playwright/test';
import { segmentsOf } from '../../../src/server/sms/kit.ts';

test('GSM-7 texts take 160 septets in one part and 153 per part beyond, an extension character counting two', () => {
  expect(segmentsOf('a'.repeat(160))).toBe(1);
  expect(segmentsOf('a'.repeat(161))).toBe(2);
  expect(segmentsOf('€'.repeat(80))).toBe(1);
  expect(segmentsOf(`${'€'.repeat(80)}a`)).toBe(2);
  // 152 septets then an extension character: the escape is not split from it, so it opens the second part.
  expect(segmentsOf(`${'a'.repeat(152)}[${'a'.repeat(8)}`)).toBe(2);
  expect(segmentsOf('a'.repeat(153 * 2))).toBe(2);
  expect(segmentsOf('a'.repeat(153 * 2 + 1))).toBe(3);
});

test('UCS-2 texts take 70 code units in one part and 67 beyond, an emoji counting two and never split', () => {
  expect(segmentsOf('й'.repeat(70))).toBe(1);
  expect(segmentsOf('й'.repeat(71))).toBe(2);
  expect(segmentsOf('😀'.repeat(35))).toBe(1);
  expect(segmentsOf('😀'.repeat(36))).toBe(2);
  // 134 code units fit two parts of 67, but the emoji cannot straddle the first part's end: three.
  expect(segmentsOf(`${'й'.repeat(66)}😀${'й'.repeat(66)}`)).toBe(3);
  expect(segmentsOf('')).toBe(1);
});
