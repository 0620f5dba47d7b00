import { test, expect } from '@playwright/test';
import { AmbiguousLinkError, extractLinks, extractOtp, extractOtps, findLink, type ExtractSource, type OtpOptions } from '../../../src/extract/index.ts';

/**
 * The shapes that real identity systems and email frameworks send (issue 15):
 * framework layouts that zero the font size of a wrapper, letter-only codes,
 * long and grouped digit codes, and link filters written as the button's text.
 */

function rejectedOf(source: ExtractSource, options?: OtpOptions) {
  return extractOtps(source, options).rejected;
}

/** An MJML-style column: the wrapper cell zeroes the font size, the inner div sets it again. */
const mjColumn = (inner: string) => `<div class="mj-column-per-100 mj-outlook-group-fix" style="font-size:0px;text-align:left;direction:ltr;display:inline-block;vertical-align:top;width:100%;">
  <table border="0" cellpadding="0" cellspacing="0" role="presentation" style="vertical-align:top;" width="100%"><tbody><tr>
  <td align="left" style="font-size:0px;padding:10px 25px;word-break:break-word;">${inner}</td></tr></tbody></table></div>`;

test.describe('hidden text is judged where the text is', () => {
  test('text inside a font-size:0 wrapper whose inner element sets the size again is read', () => {
    const html = mjColumn('<div style="font-family:Helvetica,Arial;font-size:16px;line-height:1;color:#111;">Your sign-in code is</div>') +
      mjColumn('<div style="font-family:Courier New,monospace;font-size:32px;letter-spacing:6px;color:#111;">604917</div>');
    expect(extractOtp({ html })).toBe('604917');
  });

  test('a reset on an inner td (Foundation-style) or with rem units also makes text visible', () => {
    expect(extractOtp({ html: '<table><tr><td style="font-size:0;line-height:0"><table><tr><td style="font-size:15px;line-height:22px">Your verification code: <b>381204</b></td></tr></table></td></tr></table>' })).toBe('381204');
    expect(extractOtp({ html: '<div style="font-size:0"><p style="font-size:1.25rem">Login code <strong>553019</strong></p></div>' })).toBe('553019');
  });

  test('display:none, max-height:0 with overflow:hidden, mso-hide:all, opacity:0 and an unreset font-size:0 stay hidden, and say so', () => {
    const hiders: Array<[string, RegExp]> = [
      ['display:none', /display:none/],
      ['max-height:0;overflow:hidden', /max-height:0/],
      ['mso-hide:all', /mso-hide:all/],
      ['opacity:0', /opacity:0/],
      ['font-size:0px', /font-size:0/],
    ];
    for (const [css, reason] of hiders) {
      const html = `<div style="${css}">Your code is 111111</div><p>Your code is <b>222222</b></p>`;
      expect(extractOtps(html).map((c) => c.code), css).toEqual(['222222']);
      const dropped = rejectedOf({ html: `<div style="${css}">Your code is 111111</div><p>Nothing else here.</p>` });
      expect(dropped.find((r) => r.raw === '111111')?.reason, css).toMatch(/hidden/);
      expect(dropped.find((r) => r.raw === '111111')?.reason, css).toMatch(reason);
    }
  });

  test('an em size inside a font-size:0 wrapper is still zero, so the text stays hidden', () => {
    expect(extractOtps('<div style="font-size:0"><span style="font-size:2em">Your code is 111111</span></div><p>code <b>222222</b></p>').map((c) => c.code)).toEqual(['222222']);
  });

  test('links follow the same rule: a button in a zeroed wrapper with a reset is found, a hidden link is not', () => {
    const html = mjColumn('<table role="presentation"><tr><td style="border-radius:3px;background:#414141;"><a href="https://id.example/verify?t=1" style="display:inline-block;font-size:13px;color:#fff;">Verify email</a></td></tr></table>') +
      '<div style="display:none;max-height:0;overflow:hidden"><a href="https://id.example/hidden">Verify email address now</a></div>' +
      '<div style="font-size:0"><a href="https://id.example/tiny">Verify</a></div>';
    expect(extractLinks(html).map((l) => l.href)).toEqual(['https://id.example/verify?t=1']);
    expect(findLink(html, /verify/i).href).toBe('https://id.example/verify?t=1');
  });

  test('an image link in a zeroed wrapper is visible (images have no font size)', () => {
    expect(extractLinks('<td style="font-size:0"><a href="https://shop.example/"><img alt="Shop logo" src="x.png"></a></td>').map((l) => l.text)).toEqual(['Shop logo']);
  });

  test('hidden text inside a link does not count as its text', () => {
    expect(extractLinks('<a href="https://x.example/r"><span style="display:none">Reset password</span>Revoke access</a>')[0]?.text).toBe('Revoke access');
  });
});

test.describe('letter-only codes', () => {
  test('a consonant-alphabet code next to a code word is found, plain or grouped', () => {
    expect(extractOtp('Your verification code is KWNRTXBH.')).toBe('KWNRTXBH');
    expect(extractOtp('Your sign-in code: KWNR-TXBH')).toBe('KWNRTXBH');
    expect(extractOtp({ subject: 'HPTWQZ is your Acme login code', text: 'Use the code in the subject line.' })).toBe('HPTWQZ');
  });

  test('a letter code from a mixed alphabet is found when it is styled or set apart like a code', () => {
    expect(extractOtp('<p>Enter this one-time code to continue:</p><p style="font-size:28px;font-weight:bold;letter-spacing:4px">BAKEMOTU</p>')).toBe('BAKEMOTU');
    expect(extractOtp('Your login code is\n\nRAPUDEXO\n\nIt expires in 10 minutes.')).toBe('RAPUDEXO');
  });

  test('ordinary words in capitals are never codes: VERIFY, HTML, USD, brand names, shouted headings', () => {
    const notCodes = [
      '<h1 style="font-size:32px">VERIFY</h1><p>Your code is on its way.</p>',
      '<p>This code is sent as HTML and costs 5 USD.</p><p style="font-size:24px"><b>USD</b></p>',
      '<h1 style="font-size:30px">KESTREL</h1><p>Kestrel sends you this code because you asked.</p>',
      '<h2 style="font-size:26px">CONFIRM YOUR ACCOUNT</h2><p>We need a code.</p>',
      '<p style="font-size:28px"><b>SECURITY CODE REQUESTED</b></p>',
      '<p style="font-size:28px"><b>ATTENTION</b></p><p>Code sent.</p>',
    ];
    for (const html of notCodes) {
      expect(extractOtps(html).map((c) => c.code), html).toEqual([]);
    }
  });

  test('a letter code needs a code word nearby', () => {
    expect(extractOtps('<p style="font-size:28px"><b>KWNRTXBH</b></p><p>Thanks for reading.</p>')).toEqual([]);
  });

  test('a digit code still wins over capital words around it', () => {
    expect(extractOtp('<h1>WELCOME TO ACME</h1><p>Your verification code is <b>482913</b>.</p><p>NOTE: never share it.</p>')).toBe('482913');
  });
});

test.describe('long and grouped digit codes', () => {
  test('codes of 9 and 10 digits are found by default', () => {
    expect(extractOtp('Your verification code is 482913067.')).toBe('482913067');
    expect(extractOtp('Your verification code is 4829130671.')).toBe('4829130671');
    expect(extractOtps('Your code is 48291306712.').length).toBe(0);
  });

  test('a dashed or spaced 9-digit code next to a code word is not taken for a phone number', () => {
    expect(extractOtp('Your verification code is 482-913-067.')).toBe('482913067');
    expect(extractOtp('<p>Your one-time code:</p><p style="font-size:24px">482 913 067</p>')).toBe('482913067');
  });

  test('the same shape after a phone word is still a phone number', () => {
    const rejected = rejectedOf('Your code is below. Call us at 482-913-067 if you need help.');
    expect(rejected.find((r) => r.raw.includes('482-913-067'))?.reason).toMatch(/phone/);
  });

  test('a date-shaped code yields to a code context, and any mask to an explicit length or pattern', () => {
    expect(extractOtp('Your verification code is 12-05-24.')).toBe('120524');
    const loose = 'Here is the code we promised, 482-913-067, valid for ten minutes.';
    expect(extractOtps(loose).map((c) => c.code)).toEqual([]);
    expect(extractOtp(loose, { length: 9 })).toBe('482913067');
    expect(extractOtp(loose, { pattern: /\d{3}-\d{3}-\d{3}/ })).toBe('482913067');
  });

  test('otps() says why a visible-looking number was dropped', () => {
    const rejected = rejectedOf('Questions? +44 20 7946 0958. Sent 2024-03-15.');
    expect(rejected).toEqual(expect.arrayContaining([
      expect.objectContaining({ raw: '+44 20 7946 0958', reason: 'a phone number' }),
      expect.objectContaining({ raw: '2024-03-15', reason: 'a date' }),
    ]));
  });
});

test.describe('link filters name the link by its text first', () => {
  const html = `<p><a href="https://id.example/reset?t=9">Reset password</a></p>
    <p>Not you? <a href="https://id.example/revoke/reset-password?t=9">Revoke</a> this request.</p>`;

  test('a string or RegExp that matches a link text ignores other links whose href matches', () => {
    expect(findLink(html, /reset/i).href).toBe('https://id.example/reset?t=9');
    expect(findLink(html, 'reset').href).toBe('https://id.example/reset?t=9');
    expect(extractLinks(html, /reset/i).map((l) => l.text)).toEqual(['Reset password']);
  });

  test('the href is consulted when no link text matches, or when asked for with { href }', () => {
    expect(findLink(html, '/revoke/').text).toBe('Revoke');
    expect(extractLinks(html, { href: /reset/ }).map((l) => l.text)).toEqual(['Reset password', 'Revoke']);
  });

  test('a real ambiguity lists each link and whether its text or its href matched', () => {
    const two = '<a href="https://a.example/confirm">Confirm</a> <a href="https://b.example/confirm">Confirm now</a>';
    const error = (() => { try { findLink(two, 'confirm'); } catch (e) { return e as AmbiguousLinkError; } return null; })();
    expect(error).toBeInstanceOf(AmbiguousLinkError);
    expect(error?.message).toContain('"Confirm" → https://a.example/confirm (text matched)');
    expect(error?.message).toContain('"Confirm now" → https://b.example/confirm (text matched)');
    const byHref = (() => { try { findLink(two, /example\/confirm/); } catch (e) { return e as AmbiguousLinkError; } return null; })();
    expect(byHref?.message).toContain('"Confirm" → https://a.example/confirm (href matched)');
  });
});
