/**
 * The viewer says how an email came: SMTP, or the provider API named by the
 * provider table, with the id it answered and its template.
 */
import { expect, test } from '@playwright/test';
import { emailVia } from '../../src/viewer/via.ts';

test('an email without the via header came over SMTP', () => {
  expect(emailVia({ headers: { subject: 'x' } })).toBe('SMTP');
});

test('an email through a provider API is named by its label, with its id and template', () => {
  expect(emailVia({ headers: { 'x-inboxkit-via': 'sendgrid', 'x-inboxkit-via-id': 'abc', 'x-inboxkit-template': 'd-1' } })).toBe('SendGrid API, id abc, template d-1');
  expect(emailVia({ headers: { 'x-inboxkit-via': 'resend' } })).toBe('Resend API');
  expect(emailVia({ headers: { 'x-inboxkit-via': 'someday' } })).toBe('someday API');
});
