import { test, expect } from '@playwright/test';
import { AmbiguousLinkError, extractLinks, extractOtp, extractOtps, findLink, type ExtractSource, type OtpOptions } from '../../../src/extract/index.ts';

/**
 * Issue 28: mixed-case codes, codes announced in the paragraph before a number
 * set apart, and sibling links whose URLs share the filter's word. The email
 * corpus of these families is tests/fixtures/verification-families (run by
 * corpus.spec.ts); these tests pin each rule and its explanation.
 */

const codes = (source: ExtractSource, options?: OtpOptions) => extractOtps(source, options).map((c) => c.code);
const reasonFor = (source: ExtractSource, raw: string) => extractOtps(source).rejected.find((r) => r.raw === raw)?.reason;
const ambiguity = (source: ExtractSource, filter: Parameters<typeof findLink>[1]) => {
  try { findLink(source, filter); } catch (e) { return e as AmbiguousLinkError; }
  return null;
};

test.describe('mixed-case codes', () => {
  test('a mixed-case code named a code right before it is found, in its own case', () => {
    expect(extractOtp({ text: 'To sign in, visit https://id.example.com/lc and enter the code hT4wq9' })).toBe('hT4wq9');
    expect(extractOtps({ text: 'Votre code de connexion est : bX9tKe4M' })[0]?.reasons).toContain('mixed case: named a code right before it');
  });

  test('a mixed-case code set apart or styled next to a code word is found', () => {
    expect(extractOtp({ html: '<p>Your sign-in code:</p><p style="font-size:24px">Rk7pQz2W</p>' })).toBe('Rk7pQz2W');
    expect(extractOtp({ html: '<p>Use this verification code to continue: <code>Mq8vZr3k</code> (case matters).</p>' })).toBe('Mq8vZr3k');
    expect(extractOtp({ text: 'Ihr Anmeldecode:\n\nwN5kRt7e\n\nEr gilt 10 Minuten.' })).toBe('wN5kRt7e');
  });

  test('a nearby code word alone is not enough, and rejected says so', () => {
    const source = { text: 'Enter your code in the app. Greetings from Xk7pQ2wZ and the team.' };
    expect(codes(source)).toEqual([]);
    expect(reasonFor(source, 'Xk7pQ2wZ')).toBe('mixed case letters and digits, and only a nearby code word says code');
  });

  test('without a code word nearby a mixed-case token is not a code, even set apart', () => {
    const source = { html: '<p>Your booking is confirmed.</p><p style="font-size:22px"><b>Bk72Lm9Q</b></p>' };
    expect(codes(source)).toEqual([]);
    expect(reasonFor(source, 'Bk72Lm9Q')).toBe('mixed case letters and digits, with no code word nearby');
  });

  test('names with a number are never codes, even set apart after a code word', () => {
    for (const name of ['Python3', 'iPhone15', 'Office365', 'Log4Shell', '1Password', 'macOS14', 'Windows11', 'W3Schools', 'Pixel8']) {
      const source = { html: `<p>Your verification code:</p><p style="font-size:24px"><b>${name}</b></p>` };
      expect(codes(source), name).toEqual([]);
      expect(reasonFor(source, name), name).toMatch(/reads as a name with a number/);
    }
  });

  test('camel-case brand names and ordinary words without digits are not even candidates', () => {
    const source = { html: '<p>Your code for GitHub, iPhone, PayPal and YouTube:</p><p><b>Please</b> <b>McDonald</b></p>' };
    expect(codes(source)).toEqual([]);
    expect(extractOtps(source).rejected).toEqual([]);
  });

  test('a token the message also writes in another case is a name, not a code', () => {
    const source = { html: '<p>Welcome to qx7lm2rt cloud.</p><p>Your code:</p><p><b>Qx7Lm2Rt</b></p>' };
    expect(codes(source)).toEqual([]);
    expect(reasonFor(source, 'Qx7Lm2Rt')).toMatch(/also writes it in another case/);
  });

  test('pieces of base64, tokens and ids are not codes, and rejected names the whole', () => {
    for (const [text, piece, whole] of [
      ['Your code: dGVzdA9x==', 'dGVzdA9x', 'dGVzdA9x=='],
      ['Your code: hdr.Xk7pQ2wZ.sig', 'Xk7pQ2wZ', 'hdr.Xk7pQ2wZ.sig'],
      ['Your code: token_Xy7Kp2qR', 'Xy7Kp2qR', 'token_Xy7Kp2qR'],
      ['Your code: Qm9v/ayB0b2tl', 'ayB0b2tl', 'Qm9v/ayB0b2tl'],
    ] as const) {
      expect(codes({ text }), text).toEqual([]);
      expect(reasonFor({ text }, piece), text).toBe(`part of the longer identifier ${whole}`);
    }
  });

  test('the rest of a URL wrapped onto the next line is not a code', () => {
    const source = { text: 'Reset code link:\nhttps://id.example/reset?t=Qm9vayB0b\n2tlbiA5\n' };
    expect(codes(source)).toEqual([]);
    expect(reasonFor(source, '2tlbiA5')).toBe('mixed case: continues the URL or token on the line before');
  });

  test('a mixed-case token inside a URL is part of the URL', () => {
    expect(codes({ text: 'Your code: https://id.example/c/hT4wq9Zk' })).toEqual([]);
  });

  test('alphanumeric: false turns mixed-case codes off, and length limits them', () => {
    const text = 'Enter the code hT4wq9';
    expect(codes({ text }, { alphanumeric: false })).toEqual([]);
    expect(codes({ text }, { length: 8 })).toEqual([]);
    expect(codes({ text }, { length: 6 })).toEqual(['hT4wq9']);
  });
});

test.describe('a code announced in the paragraph before, then set apart', () => {
  const announcedHtml = '<p>Your email verification code is listed below. Please enter it in your open browser window.</p><p style="font-size:26px">482-913-067</p>';

  test('lifts the phone mask in HTML and says so in the reasons', () => {
    const [best] = extractOtps({ html: announcedHtml });
    expect(best?.code).toBe('482913067');
    expect(best?.reasons[0]).toBe('announced in the paragraph before ("verification code"), then set apart');
  });

  test('reads the whole previous paragraph of a hard-wrapped text body', () => {
    const text = 'Hi,\n\nYour email verification code is listed below. Please enter it in your\nopen browser window.\n\n482-913-067\n\nThanks';
    expect(extractOtp({ text })).toBe('482913067');
  });

  test('lifts the # reference mask too', () => {
    expect(extractOtp({ html: '<p>Your login code is below. It works once.</p><p><b>#48213</b></p>' })).toBe('48213');
  });

  test('a paragraph that also names a phone leaves a phone number alone, and rejected says why', () => {
    const source = { html: '<p>Trouble with your verification code? Call us:</p><p><b>415-555-0188</b></p>' };
    expect(codes(source)).toEqual([]);
    expect(reasonFor(source, '415-555-0188')).toBe('a phone number; the paragraph before names a code ("verification code") but also a phone ("Call us")');
  });

  test('a number not laid out as a code stays a phone number', () => {
    for (const phone of ['(415) 555-0134', '030 1234 567', '555-123-4567']) {
      const source = { html: `<p>Your code stays with you. Our team is at</p><p><b>${phone}</b></p>` };
      expect(codes(source), phone).toEqual([]);
      expect(reasonFor(source, phone), phone).toMatch(/a phone number; the paragraph before names a code \("code"\) but .* is not laid out as a code/);
    }
  });

  test('a help line after a code word, or a question about the code, keeps its phone number, in any grouping', () => {
    for (const [paragraph, phone, why] of [
      ['Un souci avec votre code ? Notre équipe vous répond :', '01 84 88 20 20', /asks a question about it/],
      ['¿Problemas con tu código? Te atendemos en el', '912 345 678', /asks a question about it/],
      ['For help with your verification code, our team is available at', '512 345 678', /about help or support \("help"\)/],
      ['Masz pytania dotyczące kodu? Zadzwoń do nas:', '512 345 678', /also a phone/],
      ['Pour toute demande sur votre code, notre équipe répond au', '01 84 88 20 20', /not laid out as a code/],
    ] as const) {
      const source = { html: `<p>${paragraph}</p><p><b>${phone}</b></p>` };
      expect(codes(source), phone).toEqual([]);
      expect(reasonFor(source, phone), paragraph).toMatch(why);
    }
  });

  test('a date stays a date: pairs of digits are not laid out as a code', () => {
    const source = { html: '<p>Your code of conduct summary expires on</p><p><b>15-03-26</b></p>' };
    expect(codes(source)).toEqual([]);
    expect(reasonFor(source, '15-03-26')).toBe('a date; the paragraph before names a code ("code") but 15-03-26 is not laid out as a code (groups of three or four digits, all of one length)');
  });

  test('a paragraph that already holds its code, or labels another number, announces nothing else', () => {
    const held = { html: '<p>Your code is 604917. Keep this email safe.</p><p><b>482-913-067</b></p>' };
    expect(codes(held)).toEqual(['604917']);
    expect(reasonFor(held, '482-913-067')).toMatch(/already holds a number/);
    const labelled = { html: '<p>Your order with the promo code:</p><p><b>#48213</b></p>' };
    expect(codes(labelled)).toEqual([]);
    expect(reasonFor(labelled, '#48213')).toMatch(/also another kind of number \("order"\)/);
  });

  test('the number must stand alone in its block', () => {
    const source = { html: '<p>Your verification code is listed below.</p><p>Or call 482-913-067 any day.</p>' };
    expect(codes(source)).toEqual([]);
    expect(reasonFor(source, '482-913-067')).toBe('a phone number');
  });
});

test.describe('sibling links that share a word', () => {
  const reset = 'https://id.example/reset-password/8d2f?t=Qm9v';
  const revoke = 'https://id.example/revoke/reset-password/8d2f?t=Qm9v';
  const urlTexts = `<p>Reset it: <a href="${reset}">${reset}</a></p><p>Not you? <a href="${revoke}">${revoke}</a></p>`;

  test('when the texts are URLs, the one whose first path segment carries the filter wins', () => {
    expect(findLink(urlTexts, /reset/i).href).toBe(reset);
    expect(findLink(urlTexts, 'reset-password').href).toBe(reset);
    expect(findLink({ text: `Reset it:\n${reset}\n\nNot you? Revoke:\n${revoke}\n` }, /reset/i).href).toBe(reset);
  });

  test('a URL written without its scheme counts as a URL text', () => {
    const bare = (u: string) => u.replace('https://', '');
    const html = `<p><a href="${reset}">${bare(reset)}</a></p><p><a href="${revoke}">${bare(revoke)}</a></p>`;
    expect(findLink(html, /reset/i).href).toBe(reset);
  });

  test('links() returns both, and its reasons say which is preferred and why', () => {
    const links = extractLinks(urlTexts, /reset/i);
    expect(links.map((l) => l.href)).toEqual([reset, revoke]);
    expect(links[0]?.reasons).toEqual([
      'text matched',
      'its text is a URL whose first path segment (/reset-password) carries /reset/i',
      'preferred: it carries the filter in its text or first path segment, where 1 other match carries it only deeper in the URL',
    ]);
    expect(links[1]?.reasons).toEqual([
      'text matched',
      'its text is a URL that carries /reset/i only outside its first path segment (/revoke/reset-password/8d2f)',
      'set aside: another match carries the filter in its text or first path segment',
    ]);
  });

  test('a visible text that carries the filter wins over a URL text that carries it deeper', () => {
    const html = '<p><a href="https://t.example/subscribe/confirm?s=7">Confirm subscription</a></p><p><a href="https://t.example/unsubscribe/confirm?s=7">https://t.example/unsubscribe/confirm?s=7</a></p>';
    expect(findLink(html, /confirm/i).href).toBe('https://t.example/subscribe/confirm?s=7');
  });

  test('an href filter prefers the href whose first path segment carries it', () => {
    const html = '<p><a href="https://id.example/reset?t=9">Reset password</a></p><p>Not you? <a href="https://id.example/revoke/reset-password?t=9">Revoke</a></p>';
    expect(findLink(html, { href: /reset/ }).text).toBe('Reset password');
    expect(extractLinks(html, { href: /reset/ }).map((l) => l.text)).toEqual(['Reset password', 'Revoke']);
  });

  test('equally good matches still raise the ambiguity error, which lists what it set aside', () => {
    const other = 'https://id.example/reset-password/9e3a?t=Zm9v';
    const error = ambiguity(`${urlTexts}<p><a href="${other}">${other}</a></p>`, /reset/i);
    expect(error).toBeInstanceOf(AmbiguousLinkError);
    expect(error?.matches.map((l) => l.href)).toEqual([reset, other]);
    expect(error?.setAside.map((l) => l.href)).toEqual([revoke]);
    expect(error?.message).toContain('2 different links matched the filter (text or href matches /reset/i), and they carry it equally well');
    expect(error?.message).toContain(`Also matched, but set aside because the filter appears only deeper in their URL:\n  - ${revoke} (its text is a URL that carries /reset/i only outside its first path segment`);
  });

  test('links that carry the filter only deeper, all of them, stay ambiguous', () => {
    const html = '<a href="https://a.example/x/confirm">https://a.example/x/confirm</a> <a href="https://b.example/y/confirm">https://b.example/y/confirm</a>';
    const error = ambiguity(html, 'confirm');
    expect(error?.matches).toHaveLength(2);
    expect(error?.setAside).toEqual([]);
  });

  test('host and predicate filters make no preference; links without a filter carry no reasons', () => {
    expect(ambiguity(urlTexts, { host: 'id.example' })?.matches).toHaveLength(2);
    expect(extractLinks(urlTexts, { host: 'id.example' }).map((l) => l.reasons)).toEqual([['host matched'], ['host matched']]);
    expect(extractLinks(urlTexts).map((l) => l.reasons)).toEqual([undefined, undefined]);
  });
});
