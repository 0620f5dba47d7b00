/**
 * The numbers the service hands out: every one is a valid number as apps
 * check it (libphonenumber-js `isValidPhoneNumber`, what most apps call), of
 * the country asked for, and inside a range its regulator keeps for fiction.
 */
import { test, expect } from '@playwright/test';
import { isValidPhoneNumber, parsePhoneNumber } from 'libphonenumber-js';
import * as full from 'libphonenumber-js/max';
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

test('the ranges are the regulators\' fiction ranges: NANPA 555-01xx (US and CA), ACMA 0491 57x xxx, ARCEP 06 39 98 xx xx', () => {
  expect(phoneNumberAt('US', 23)).toBe('+12025550123');
  expect(phoneNumberAt('CA', 123)).toBe('+15145550123');
  expect(phoneNumberAt('AU', 0)).toBe('+61491570006');
  expect(phoneNumberAt('FR', 1234)).toBe('+33639981234');
  expect(phoneRangeSize('AU')).toBe(30);
});

test('numbers outside the fiction ranges are not the service\'s, and the UK drama range is left out because apps reject it', () => {
  for (const number of ['+12025550200', '+12025551234', '+19995550123', '+14165550200', '+61491571000', '+33639970000', '+447700900123']) {
    expect(isFictionNumber(number), number).toBe(false);
  }
  expect(isValidPhoneNumber('+447700900123')).toBe(false);
});

test('the AU numbers are exactly the 30 mobile numbers of ACMA\'s list for TV, films and creative works', () => {
  // As ACMA prints them (national form), in its order.
  const acma = [
    '0491 570 006', '0491 570 156', '0491 570 157', '0491 570 158', '0491 570 159', '0491 570 110',
    '0491 570 313', '0491 570 737', '0491 571 266', '0491 571 491', '0491 571 804', '0491 572 549',
    '0491 572 665', '0491 572 983', '0491 573 770', '0491 573 087', '0491 574 118', '0491 574 632',
    '0491 575 254', '0491 575 789', '0491 576 398', '0491 576 801', '0491 577 426', '0491 577 644',
    '0491 578 957', '0491 578 148', '0491 578 888', '0491 579 212', '0491 579 760', '0491 579 455',
  ];
  const handedOut = Array.from({ length: phoneRangeSize('AU') }, (_, i) => phoneNumberAt('AU', i));
  expect(handedOut).toEqual(acma.map((n) => `+61${n.replace(/\s/g, '').slice(1)}`));
});

test('with the full metadata (libphonenumber-js/max, as Google\'s libphonenumber and Python\'s phonenumbers check) every US, CA and AU number is valid and can take SMS; FR numbers are not, as docs/phones.md warns', () => {
  for (const country of PHONE_COUNTRIES) {
    const numbers = Array.from({ length: phoneRangeSize(country) }, (_, i) => phoneNumberAt(country, i));
    const valid = numbers.filter((n) => full.isValidPhoneNumber(n));
    if (country === 'FR') {
      expect(valid, 'the full metadata does not list 06 39 98 as assigned; if this changes, update docs/phones.md').toEqual([]);
      continue;
    }
    expect(valid).toHaveLength(numbers.length);
    const types = new Set(numbers.map((n) => full.parsePhoneNumber(n).getType()));
    expect([...types].every((t) => t === 'MOBILE' || t === 'FIXED_LINE_OR_MOBILE'), `${country}: ${[...types].join(', ')}`).toBe(true);
  }
});
