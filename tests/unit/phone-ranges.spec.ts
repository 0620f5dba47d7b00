/**
 * The numbers the service hands out: every one is a valid number as apps
 * check it (libphonenumber-js `isValidPhoneNumber`, what most apps call), of
 * the country asked for, and inside a range its regulator keeps for fiction.
 */
import { test, expect } from '@playwright/test';
import { isValidPhoneNumber, parsePhoneNumber } from 'libphonenumber-js';
import { PHONE_COUNTRIES, isFictionNumber, isPhoneLocalPart, phoneNumberAt, phoneRangeSize } from '../../src/wire/phones.ts';

for (const country of PHONE_COUNTRIES) {
  test(`every ${country} number of the range is distinct, E.164, a fiction number and valid for libphonenumber-js in ${country}`, () => {
    const size = phoneRangeSize(country);
    const numbers = new Set<string>();
    const wrong: string[] = [];
    for (let i = 0; i < size; i++) {
      const number = phoneNumberAt(country, i);
      numbers.add(number);
      const ok = isPhoneLocalPart(number) && isFictionNumber(number) && isValidPhoneNumber(number) && parsePhoneNumber(number).country === country;
      if (!ok) wrong.push(number);
    }
    expect(wrong).toEqual([]);
    expect(numbers.size).toBe(size);
  });
}

test('the ranges are the regulators\' fiction ranges: NANPA 555-01xx, ACMA 0491 57x xxx, ARCEP 06 39 98 xx xx', () => {
  expect(phoneNumberAt('US', 23)).toBe('+12025550123');
  expect(phoneNumberAt('AU', 0)).toBe('+61491570006');
  expect(phoneNumberAt('FR', 1234)).toBe('+33639981234');
  expect(phoneRangeSize('AU')).toBe(30);
});

test('numbers outside the fiction ranges are not the service\'s, and the UK drama range is left out because apps reject it', () => {
  for (const number of ['+12025550200', '+12025551234', '+19995550123', '+61491571000', '+33639970000', '+447700900123']) {
    expect(isFictionNumber(number), number).toBe(false);
  }
  expect(isValidPhoneNumber('+447700900123')).toBe(false);
});
