import { test, expect } from '@playwright/test';
import { deflateSync } from 'node:zlib';
import { extractLinks, findLink, unwrapTrackingUrl } from '../../../src/extract/index.ts';

/**
 * Issue 37: click tracking unwrapped offline where the URL carries its target
 * (Postmark, Mailgun, Mandrill, Customer.io), and named where it does not
 * (SendGrid, Mailchimp, Mailjet, Brevo, HubSpot, Iterable, Klaviyo,
 * SparkPost …); URLs written as text in an HTML-only mail.
 */

const target = 'https://app.example.com/verify?token=tok-42&email=a%40b.example';
const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

test.describe('tracking that carries its target is unwrapped offline', () => {
  test('Mailgun: the /c/ payload is base64url of zlib-compressed form data whose l is the target', () => {
    // The layout of real Mailgun links (d, i, h, l, r), target percent-encoded in l.
    const form = new URLSearchParams({ d: '17', i: '20261128070000.1.85DF858C12DD0CFE@mg.acme.example', h: '93c1adf596d771d5e1bb0b7204af1016', l: target, r: 'a@b.example' }).toString();
    const payload = b64url(deflateSync(form));
    expect(payload.startsWith('eJ')).toBe(true);
    expect(unwrapTrackingUrl(`https://email.mg.acme.example/c/${payload}`)).toEqual({ url: target, wrappers: ['mailgun'] });
  });

  test('Mailgun: a payload without an l target is left as it is', () => {
    const noLink = b64url(deflateSync('d=17&h=93c1adf596d771d5&r=a%40b.example'));
    expect(unwrapTrackingUrl(`https://email.mg.acme.example/c/${noLink}`).wrappers).toEqual([]);
  });

  test('Mandrill: p= is base64 JSON whose p is JSON with the url', () => {
    const p = Buffer.from(JSON.stringify({ s: 'sig', v: 1, p: JSON.stringify({ u: 30000001, v: 1, url: target, id: 'abc' }) })).toString('base64');
    expect(unwrapTrackingUrl(`https://mandrillapp.com/track/click/30000001/app.example.com?p=${encodeURIComponent(p)}`)).toEqual({ url: target, wrappers: ['mandrill'] });
  });

  test('Postmark: the target, percent-encoded and without its scheme, is the second path segment', () => {
    const encoded = encodeURIComponent('app.example.com/verify?token=tok-42&email=a%40b.example');
    expect(unwrapTrackingUrl(`https://click.pstmrk.it/3s/${encoded}/Ab3d/XyZw/AQ/1`)).toEqual({ url: target, wrappers: ['postmark'] });
    expect(unwrapTrackingUrl(`https://click.pstmrk.it/2/${encodeURIComponent('app.example.com/a')}/x/y`).url).toBe('http://app.example.com/a');
  });

  test('Postmark: the version segment may carry several flag letters (2sm, 3ts), as real links do', () => {
    const encoded = encodeURIComponent('app.example.com/email-confirm/?token=ZfB5G3Vzci1j');
    for (const version of ['2s', '2sm', '3ts']) {
      expect(unwrapTrackingUrl(`https://click.pstmrk.it/${version}/${encoded}/5VpE/dOizAQ/AQ/1/58BL`)).toEqual({ url: 'https://app.example.com/email-confirm/?token=ZfB5G3Vzci1j', wrappers: ['postmark'] });
    }
  });

  test('Customer.io: /e/c/ is base64url JSON with the href', () => {
    const json = b64url(JSON.stringify({ email_id: 'dgTq', href: target, internal: 'f0', link_id: 7 }));
    expect(unwrapTrackingUrl(`https://e.customeriomail.com/e/c/${json}/sig123`)).toEqual({ url: target, wrappers: ['customer.io'] });
  });

  test('Customer.io: an href with its & written as \\u0026, in unpadded base64url, is read as real links write it', () => {
    const json = b64url('{"email_id":"dgTiqwoAAKM1","href":"https://app.example.com/verify?token=tok-42\\u0026email=a%40b.example","internal":"e2ab0a00","link_id":10}');
    expect(json).not.toContain('=');
    expect(unwrapTrackingUrl(`https://track.acme.example/e/c/${json}/66d296e7a577c0de`)).toEqual({ url: target, wrappers: ['customer.io'] });
  });

  test('a payload that does not decode to a target is left alone', () => {
    expect(unwrapTrackingUrl('https://email.mg.acme.example/c/eJxnotzlibatall')).toEqual({ url: 'https://email.mg.acme.example/c/eJxnotzlibatall', wrappers: [] });
    expect(unwrapTrackingUrl('https://app.example.com/e/c/eyJub3QiOiJhIHVybCJ9/x').wrappers).toEqual([]);
  });

  test('an unwrapped link says so in its reasons, and link() gives them too', () => {
    const payload = b64url(deflateSync(new URLSearchParams({ h: 'f00d', l: target }).toString()));
    const html = `<p><a href="https://email.mg.acme.example/c/${payload}">Confirm email</a></p>`;
    const link = findLink(html, 'Confirm email');
    expect(link.href).toBe(target);
    expect(link.reasons).toContain('unwrapped offline from mailgun click tracking (originalHref keeps the tracked URL)');
  });
});

test.describe('tracking that keeps its target at the provider is named', () => {
  for (const [provider, url] of [
    ['sendgrid', 'https://u123.ct.sendgrid.net/ls/click?upn=u001.AbCdEf-2BgH'],
    ['mailchimp', 'https://acme.us1.list-manage.com/track/click?u=abc&id=def&e=123'],
    ['mailjet', 'https://x5k2.mjt.lu/lnk/AAAA/BBBB/1/CCCC'],
    ['brevo', 'https://r.sendibt2.com/tr/cl/AbCdEf'],
    ['hubspot', 'https://d1abc04.na1.hubspotlinks.com/Ctc/5C+113/d1abc04/VWxyz'],
    ['iterable', 'https://links.iterable.com/u/click?_t=abc&_m=def'],
    ['klaviyo', 'https://ctrk.klclick.com/l/01ABC_def'],
    ['sparkpost', 'https://go.sparkpostmail.com/f/a/Ahvxyz~~/AAAAAQA~/RgRh'],
  ] as const) {
    test(`${provider}: href stays the tracked URL, trackedBy and the reasons say why`, () => {
      expect(unwrapTrackingUrl(url)).toEqual({ url, wrappers: [], trackedBy: provider });
      const [link] = extractLinks(`<p><a href="${url}">Confirm email</a></p>`, 'Confirm email');
      expect(link?.href).toBe(url);
      expect(link?.trackedBy).toBe(provider);
      expect(link?.reasons).toContain(`tracked by ${provider}: the target is kept at ${provider} and cannot be read offline, so href is the tracked URL; in a Playwright test, await link.resolve() follows its redirect`);
    });
  }

  test('an ordinary link is not taken for a tracker', () => {
    expect(extractLinks('<a href="https://app.example.com/verify?t=1">Verify</a>')[0]?.trackedBy).toBeUndefined();
  });
});

test.describe('URLs written as text in an HTML body', () => {
  test('an HTML-only mail with a URL and no anchor yields the URL, raw & included', () => {
    const html = '<div><p>Confirm your address by opening this link:</p><p>https://app.example.com/confirm?token=tok-42&email=a@b.example</p><p>Thanks</p></div>';
    const link = findLink({ html }, /confirm/i);
    expect(link.href).toBe('https://app.example.com/confirm?token=tok-42&email=a@b.example');
    expect(link.form).toBe('text');
    expect(link.reasons).toContain('written as a URL in the text, not as a link');
  });

  test('it keeps its place among the anchors, and a URL inside an anchor is read once', () => {
    const html = '<p>Or paste https://app.example.com/reset?t=9 into your browser.</p><p><a href="https://app.example.com/help">https://app.example.com/help</a></p>';
    expect(extractLinks(html).map((l) => [l.href, l.form])).toEqual([['https://app.example.com/reset?t=9', 'text'], ['https://app.example.com/help', 'anchor']]);
  });

  test('a URL in hidden or zero-sized text is not read', () => {
    expect(extractLinks('<div style="display:none">https://hidden.example/a</div><div style="font-size:0">https://tiny.example/b</div><p>Hello</p>')).toEqual([]);
  });
});
