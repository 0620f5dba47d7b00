/**
 * The default domain of the local service's inboxes passes the email
 * validators real apps put in front of their sign-up forms, with addresses as
 * the fixtures and the service make them. Each validator is the library
 * itself where it is on npm (Joi, validator.js, zod, jsdom's `type=email`; the
 * browser's own is checked in tests/browser/default-domain.spec.ts); Django's
 * `EmailValidator` and Ruby's `URI::MailTo::EMAIL_REGEXP` (what Rails apps
 * use) are not, so their published patterns are written out here, each named
 * with the version it follows.
 */
import { test, expect } from '@playwright/test';
import Joi from 'joi';
import { JSDOM } from 'jsdom';
import validator from 'validator';
import { z } from 'zod';
import { DEFAULT_DOMAIN } from '../../src/wire/defaults.ts';
import { localPartFor } from '../../src/playwright/local-part.ts';

/** Addresses as inboxkit makes them: a fixture's (a test title, worker, retry, rank, random suffix) and the service's random one. */
const LOCAL_PARTS = [
  localPartFor({ title: 'a new user confirms their email address', workerIndex: 0, random: 'k2x9q1' }),
  localPartFor({ title: 'Réinitialise le mot de passe — 2FA (TOTP) & "code"', workerIndex: 13, retry: 2, sequence: 1, random: '0a1b2c' }),
  localPartFor({ title: 'x'.repeat(200), workerIndex: 7, random: 'zzzzzz' }),
  'k3x9m2p7q1w8',
];

/** Django's `EmailValidator` (django/core/validators.py), whose domain rule changed in 5.2: an address must pass both. */
function djangoAccepts(address: string): boolean {
  if (!address || !address.includes('@') || address.length > 320) return false;
  const at = address.lastIndexOf('@');
  const [user, domain] = [address.slice(0, at), address.slice(at + 1)];
  const dotAtom = /^[-!#$%&'*+/=?^_`{}|~0-9a-z]+(\.[-!#$%&'*+/=?^_`{}|~0-9a-z]+)*$/i;
  if (!dotAtom.test(user)) return false;
  if (domain === 'localhost') return true; // its allow-list
  // Up to 5.1: labels of letters, digits and inner hyphens, then a last label of 2–63 that does not end with a hyphen.
  const upTo51 = /^((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+)(?:[a-z0-9-]{2,63}(?<!-))$/i;
  // 5.2 on: DomainNameValidator's hostname, more labels, and a top-level label of letters (or punycode).
  const ul = '\u00a1-\uffff';
  const hostname = `[a-z${ul}0-9](?:[a-z${ul}0-9-]{0,61}[a-z${ul}0-9])?`;
  const labels = `(?:\\.(?!-)[a-z${ul}0-9-]{1,63}(?<!-))*`;
  const tld = `\\.(?!-)(?:[a-z${ul}-]{2,63}|xn--[a-z0-9]{1,59})(?<!-)`;
  const from52 = new RegExp(`^${hostname}${labels}${tld}$`, 'i');
  return upTo51.test(domain) && from52.test(domain);
}

/** Ruby's `URI::MailTo::EMAIL_REGEXP` (lib/uri/mailto.rb), which Rails' `validates :email, format:` idiom uses. */
const RUBY_MAILTO_EMAIL = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** jsdom's `<input type=email>`, which implements the HTML standard's "valid email address". */
function htmlInputAccepts(address: string): boolean {
  const { window } = new JSDOM('<input type="email" required>');
  const input = window.document.querySelector('input')!;
  input.value = address;
  const valid = input.checkValidity();
  window.close();
  return valid;
}

const VALIDATORS: Array<[string, (address: string) => boolean]> = [
  ["Joi's string().email() with its default TLD list", (address) => Joi.string().email().validate(address).error === undefined],
  ["validator.js's isEmail", (address) => validator.isEmail(address)],
  ["zod's z.email()", (address) => z.email().safeParse(address).success],
  ["zod's z.string().email()", (address) => z.string().email().safeParse(address).success],
  ['the HTML type=email pattern (jsdom)', htmlInputAccepts],
  ["Django's EmailValidator (its pattern, up to 5.1 and from 5.2)", djangoAccepts],
  ["Ruby's URI::MailTo::EMAIL_REGEXP (Rails)", (address) => RUBY_MAILTO_EMAIL.test(address)],
];

test('the default domain is a name under example.com, which RFC 2606 reserves and which takes no mail', () => {
  expect(DEFAULT_DOMAIN).toBe('inboxkit.example.com');
});

for (const [name, accepts] of VALIDATORS) {
  test(`${name} accepts the addresses inboxkit makes at the default domain`, () => {
    for (const local of LOCAL_PARTS) expect(accepts(`${local}@${DEFAULT_DOMAIN}`), `${local}@${DEFAULT_DOMAIN}`).toBe(true);
  });
}

test('each validator refuses something, so the table can fail: Joi and Django refuse the reserved .test and .example names the old default used', () => {
  const joi = VALIDATORS[0]![1];
  for (const address of ['user@inboxkit.test', 'user@inboxkit.example', 'user@inboxkit.invalid', 'user@inboxkit.localhost']) expect(joi(address), address).toBe(false);
  for (const [name, accepts] of VALIDATORS) {
    for (const address of ['no-at-sign.example.com', 'two@@inboxkit.example.com', 'user@-inboxkit.example.com']) expect(accepts(address), `${name}: ${address}`).toBe(false);
  }
});
