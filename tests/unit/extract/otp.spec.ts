import { test, expect } from '@playwright/test';
import { ExtractionError, OtpNotFoundError, extractOtp, extractOtps, type ExtractSource, type OtpOptions } from '../../../src/extract/index.ts';

/** The error extractOtp throws, or fails the test when it returns a code. */
function notFound(source: ExtractSource, options?: OtpOptions): OtpNotFoundError {
  try {
    const code = extractOtp(source, options);
    throw new Error(`expected no code, got ${code}`);
  } catch (e) {
    if (!(e instanceof OtpNotFoundError)) throw e;
    return e;
  }
}

test.describe('code shapes and normalisation', () => {
  test('a code written in groups is returned as typed, with the written form in raw', () => {
    for (const [written, typed] of [['123 456', '123456'], ['123-456', '123456'], ['1 2 3 4 5 6', '123456'], ['1234 5678', '12345678'], ['ABC-123', 'ABC123'], ['K7Q2XM', 'K7Q2XM']]) {
      const [best] = extractOtps(`Your verification code is ${written}.`);
      expect(best, written).toMatchObject({ code: typed, raw: written });
    }
  });

  test('digits one per table cell make one code', () => {
    const html = '<p>Your sign-in code:</p><table><tr><td>9</td><td>0</td><td>4</td><td>1</td><td>7</td><td>3</td></tr></table>';
    expect(extractOtp(html)).toBe('904173');
    expect(extractOtps(html)[0]?.reasons).toContain('one character per cell');
  });

  test('alphanumeric: false keeps only digit codes', () => {
    const text = 'Your code is K7Q2XM. Reference 482913 is not it.';
    expect(extractOtp(text)).toBe('K7Q2XM');
    expect(extractOtps(text, { alphanumeric: false }).map((c) => c.code)).not.toContain('K7Q2XM');
  });

  test('length picks the candidate of the right length, exact or as a range', () => {
    const text = 'Your code is 4821. Your backup code is 90417325.';
    expect(extractOtp(text)).toBe('4821');
    expect(extractOtp(text, { length: 8 })).toBe('90417325');
    expect(extractOtp(text, { length: [6, 8] })).toBe('90417325');
    expect(extractOtp(text, { length: { min: 5 } })).toBe('90417325');
  });

  test('pattern finds codes of any shape, using its first capture group when it has one', () => {
    expect(extractOtp('Your recovery code: wxyz-abcd', { pattern: /[a-z]{4}-[a-z]{4}/ })).toBe('wxyzabcd');
    expect(extractOtp('Enter code G-551203 to continue', { pattern: /G-(\d{6})/ })).toBe('551203');
  });

  test('four to ten digits by default; shorter and longer numbers are not candidates', () => {
    expect(extractOtps('Your code is 123.').length).toBe(0);
    expect(extractOtps('Your code is 12345678901.').length).toBe(0);
  });
});

test.describe('ranking', () => {
  test('the word kód names a code in Czech, Slovak and Hungarian, so it outranks another number', () => {
    expect(extractOtp('Objednávka 48213 byla přijata. Váš ověřovací kód je 660192.')).toBe('660192');
    expect(extractOtp('Objednávka 48213 bola prijatá. Váš overovací kód: 660192')).toBe('660192');
    expect(extractOtp('A 48213. rendelés beérkezett. Az ellenőrző kód: 660192')).toBe('660192');
    expect(extractOtps('Váš přihlašovací kód 660192, objednávka 48213.')[0]?.reasons).toContain('near "kód"');
  });

  test('the words for code in Tamil, Bengali, Telugu and Thai name a code, so it outranks another number', () => {
    expect(extractOtp('ஆர்டர் 48213 பெறப்பட்டது. இங்கே குறியீடு: 660192')).toBe('660192');
    expect(extractOtp('অর্ডার 48213 গৃহীত হয়েছে। আপনার যাচাইকরণ কোড: 660192')).toBe('660192');
    expect(extractOtp('ఆర్డర్ 48213 స్వీకరించబడింది. మీ ధృవీకరణ కోడ్: 660192')).toBe('660192');
    expect(extractOtp('คำสั่งซื้อ 48213 ได้รับแล้ว รหัสยืนยันของคุณคือ 660192')).toBe('660192');
    expect(extractOtps('இங்கே குறியீடு: 660192, ஆர்டர் 48213.')[0]?.reasons).toContain('near "குறியீ"');
  });

  test('the Thai word for password (รหัสผ่าน) does not name a code', () => {
    // The number beside it is no order number (คำสั่งซื้อ, "order", labels one and rules it out): nothing but the password word could name it.
    const candidates = extractOtps('รหัสผ่านของคุณถูกเปลี่ยนแล้ว สมาชิก 48213 คน');
    expect(candidates.map((c) => c.code)).toContain('48213');
    expect(candidates.flatMap((c) => c.reasons).filter((r) => r.startsWith('near'))).toEqual([]);
  });

  test('the words for code in Persian, Urdu, Greek, Armenian and Georgian name a code, so it outranks another number', () => {
    expect(extractOtp('سفارش 48213 دریافت شد. این، کد شماست: 660192')).toBe('660192');
    expect(extractOtp('آرڈر 48213 موصول ہو گیا۔ آپ کا تصدیقی کوڈ: 660192')).toBe('660192');
    expect(extractOtp('Η παραγγελία 48213 ελήφθη. Ο κωδικός επαλήθευσης είναι 660192')).toBe('660192');
    expect(extractOtp('Պատվեր 48213 ստացվել է։ Ձեր հաստատման կոդը՝ 660192')).toBe('660192');
    expect(extractOtp('შეკვეთა 48213 მიღებულია. თქვენი დადასტურების კოდი: 660192')).toBe('660192');
    expect(extractOtps('Ορίστε ο κωδικός: 660192, παραγγελία 48213.')[0]?.reasons).toContain('near "κωδικός"');
  });

  test('the Greek for password (κωδικός πρόσβασης) does not name a code', () => {
    // The number beside it is no order number (παραγγελία, "order", labels one and rules it out): nothing but the password word could name it.
    const candidates = extractOtps('Ο κωδικός πρόσβασης άλλαξε για τον λογαριασμό 48213');
    expect(candidates.map((c) => c.code)).toContain('48213');
    expect(candidates.flatMap((c) => c.reasons).filter((r) => r.startsWith('near'))).toEqual([]);
  });

  test('the words for code in Catalan, Occitan, Romanian and Welsh name a code, so it outranks another number', () => {
    expect(extractOtp("La comanda 48213 s'ha rebut. Aquí tens el codi: 660192")).toBe('660192');
    expect(extractOtp('La comanda 48213 es estada recebuda. Vaquí lo còdi per dintrar : 660192')).toBe('660192');
    expect(extractOtp('Comanda 48213 a fost primită. Codul tău de verificare este 660192')).toBe('660192');
    expect(extractOtp('Derbyniwyd archeb 48213. Eich cod dilysu yw 660192')).toBe('660192');
    expect(extractOtps('Aquí tens el codi: 660192, comanda 48213.')[0]?.reasons).toContain('near "codi"');
  });

  test('the abbreviation COD (cash on delivery) does not name a code', () => {
    const candidates = extractOtps('Payment: COD 482913');
    expect(candidates.map((c) => c.code)).toEqual(['482913']);
    expect(candidates[0]?.reasons.filter((r) => r.startsWith('near'))).toEqual([]);
  });

  test('代码 and 代碼 name a code in Simplified Chinese, Traditional Chinese and Cantonese, so it outranks another number', () => {
    expect(extractOtp('订单 48213 已收到。以下是需要用到的代码：275049')).toBe('275049');
    expect(extractOtp('訂單 48213 已收到。這是代碼：275049')).toBe('275049');
    expect(extractOtp('訂單 48213 已經收到。你嘅登入碼係 275049')).toBe('275049');
    expect(extractOtps('這是代碼：275049，訂單 48213')[0]?.reasons).toContain('near "代碼"');
  });

  test('a code next to a code word outranks a bare number', () => {
    const text = 'We have 48213 members. Your verification code is 660192.';
    expect(extractOtps(text).map((c) => c.code)).toEqual(['660192', '48213']);
  });

  test('large, bold, monospace or letter-spaced text alone in its cell outranks plain text', () => {
    const html = `<p>Enter the code below. Last time you used 551207.</p>
      <table><tr><td style="font-size:32px;font-weight:bold;font-family:Courier New,monospace;letter-spacing:6px">918273</td></tr></table>`;
    const [best] = extractOtps(html);
    expect(best?.code).toBe('918273');
    expect(best?.reasons).toEqual(expect.arrayContaining(['large font', 'bold', 'monospace', 'letter-spaced', 'alone in its block']));
  });

  test('code words are recognised in many languages', () => {
    const sentences: Array<[string, string]> = [
      ['en', 'Your one-time passcode is 482913.'],
      ['de', 'Ihr Bestätigungscode lautet 482913.'],
      ['fr', 'Votre code de vérification est 482913.'],
      ['es', 'Tu código de verificación es 482913.'],
      ['it', 'Il tuo codice di verifica è 482913.'],
      ['pt', 'Seu código de verificação é 482913.'],
      ['nl', 'Je verificatiecode is 482913.'],
      ['pl', 'Twój kod weryfikacyjny to 482913.'],
      ['sv', 'Din engångskod är 482913.'],
      ['da', 'Din bekræftelseskode er 482913.'],
      ['ru', 'Ваш код подтверждения: 482913.'],
      ['tr', 'Doğrulama kodunuz: 482913.'],
      ['ja', '認証コードは482913です。'],
      ['zh', '您的验证码是482913，请勿泄露。'],
      ['ko', '인증번호는 [482913] 입니다.'],
    ];
    for (const [lang, sentence] of sentences) {
      const text = `Kundennummer / customer number 7730129\n${sentence}\nOrder 55120`;
      const [best] = extractOtps(text);
      expect(best?.code, lang).toBe('482913');
      expect(best?.reasons.some((r) => r.startsWith('near')), `${lang}: ${best?.reasons.join(', ')}`).toBe(true);
    }
  });

  test('a number with no code word nearby and no emphasis is too weak to be returned', () => {
    const error = notFound('Thanks for visiting. We now have 58213 happy users.');
    expect(error.candidates.map((c) => c.code)).toEqual(['58213']);
    expect(error.message).toContain('Too weak');
    expect(error.message).toContain('58213');
  });

  test('a code in the subject only is found, and a code in both subject and body scores higher', () => {
    expect(extractOtps({ subject: '842197 is your Hopscotch code', html: '<p>Use the code in the subject.</p>' })[0]).toMatchObject({ code: '842197', source: 'subject' });
    const both = extractOtps({ subject: 'Code: 842197', text: 'Your code is 842197' })[0];
    expect(both?.reasons).toContain('also in the subject');
  });

  test('the text body is read when the HTML has no code', () => {
    expect(extractOtps({ html: '<p>See the plain-text part.</p>', text: 'Your login code: 302918' })[0]).toMatchObject({ code: '302918', source: 'text' });
  });

  test('text hidden with display:none is not read', () => {
    const html = '<div style="display:none">code 111111</div><p>Your code is <b>222222</b></p>';
    expect(extractOtps(html).map((c) => c.code)).toEqual(['222222']);
  });
});

test.describe('exclusions', () => {
  // Each message names a code, so the number in it would be taken if the rule did not rule it out
  // (the last test of this group shows the code winning among all of them).
  const cases: Array<[string, string, RegExp]> = [
    ['a hex colour', 'Your verification code colour is #336699 in the theme.', /colour/],
    ['an rgb colour', 'Code block colour rgb(120, 200, 255) and border 4px.', /colour/],
    ['an ISO date', 'Your code was sent on 2024-03-15.', /date/],
    ['a European date', 'Code requested 15.03.2024 from Berlin.', /date/],
    ['a time', 'Code requested at 14:30:15 UTC.', /time/],
    ['a phone number', 'Lost your code? Call +1 (415) 555-0134.', /phone/],
    ['a phone number after its label', 'Code not arriving? Phone 4155 0134 anytime.', /phone/],
    ['a price', 'Your code unlocks €1.299,00 of credit.', /price/],
    ['a price with a trailing currency', 'Code valid on orders above 150000 kr now.', /price/],
    ['a year standing alone', 'We have been sending codes since 1998.', /year/],
    ['an order number', 'Use the code we sent for order 58213.', /labelled "order"/i],
    ['an invoice number', 'Code ready. Invoice no. 770312 is attached.', /labelled "invoice no/i],
    ['a ticket number', 'About your code, ticket 44120 was opened.', /labelled "ticket"/i],
    ['a reference number', 'Verification code pending, reference: 99213.', /labelled "reference"/i],
    ['a promo code', 'Use promo code SAVE2024 on checkout.', /labelled "promo code"/i],
    ['a number marked with #', 'Your code request #58213 was received.', /#/],
    ['a postal code near an address', 'Your code came from Acme GmbH, Torstraße 109, 10119 Berlin.', /address/],
    ['a US ZIP code', 'Code support: 1 Market St, San Francisco, CA 94105.', /ZIP|address/],
    ['an id inside a URL', 'Your code is in https://x.example/codes/482913 only.', /URL/],
    ['an email address', 'Code sent to user482913@example.com.', /email address/],
    ['a percentage', 'Code discount 1500% wow.', /percentage/],
    ['a decimal number', 'Code version 2.4.18832 installed.', /decimal/],
    ['a piece of a longer identifier', 'Your code request 2024-PRM-55183 is open.', /identifier/],
  ];

  for (const [what, text, reason] of cases) {
    test(`${what} is not a code`, () => {
      const error = notFound(text);
      expect(error.rejected.map((r) => r.reason).join(' | '), error.message).toMatch(reason);
      expect(error.message).toContain('Ruled out:');
    });
  }

  test('a number claimed by a label does not hide the real code after it', () => {
    expect(extractOtp('Your verification code for order 12345 is 678901.')).toBe('678901');
    expect(extractOtp('Your one-time password (OTP) for this transaction is 90417325.')).toBe('90417325');
    expect(extractOtp('Your account verification code is 553120.')).toBe('553120');
  });

  test('the code wins over colours, dates, times, phones, prices, years and order numbers around it', () => {
    const html = `<div style="color:#333">
      <p>Order #58213 · placed 2024-03-15 at 14:30 · total $1,249.99 · theme #112233</p>
      <p>Your security code:</p><p style="font-size:28px"><strong>731904</strong></p>
      <p>Questions? +44 20 7946 0958 · Invoice 2024031187 · © 2024 Acme Ltd, 71 High Street, London E1 6JJ</p></div>`;
    expect(extractOtp(html)).toBe('731904');
    expect(extractOtps(html).map((c) => c.code)).toEqual(['731904']);
  });
});

test.describe('errors', () => {
  test('OtpNotFoundError names where it looked, what it ruled out and how to widen the search', () => {
    const error = notFound({ html: '<p>Order 58213 placed 2024-03-15 for $49.99.</p>', subject: 'Your order' });
    expect(error).toBeInstanceOf(ExtractionError);
    expect(error.name).toBe('OtpNotFoundError');
    expect(error.message).toContain('No one-time code found in the HTML body, subject.');
    expect(error.message).toContain('58213: labelled "Order"');
    expect(error.message).toContain('2024-03-15: a date');
    expect(error.message).toContain('$49.99: a price');
    expect(error.message).toContain('pass { pattern } or { length }');
  });

  test('an empty message says so', () => {
    expect(notFound({ html: null, text: null }).message).toContain('in an empty message');
  });

  test('a value that is not a message is refused with a helpful TypeError', () => {
    expect(() => extractOtp(null as unknown as string)).toThrow(/expects a string or \{ html, text, subject, baseUrl \}, got null/);
  });
});
