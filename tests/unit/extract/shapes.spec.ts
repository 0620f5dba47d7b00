import { test, expect } from '@playwright/test';
import { extractOtp, extractOtps, type ExtractSource } from '../../../src/extract/index.ts';

/**
 * Issue 37: code shapes that words and identifiers share, read as a person
 * reads them — dash-joined base32 groups named a code, lower-case tokens on a
 * line of their own after "enter this code", long hex or base32 codes the mail
 * asks to copy, and codes readable only in an image's alt text — each in
 * several languages, next to the look-alikes that must stay out.
 */

const codes = (source: ExtractSource) => extractOtps(source).map((c) => c.code);
const reasonFor = (source: ExtractSource, raw: string) => extractOtps(source).rejected.find((r) => r.raw === raw)?.reason;

test.describe('groups of upper-case letters and digits joined by dashes', () => {
  test('are a code when the mail names them one, in English, German, French and Polish', () => {
    expect(extractOtp({ text: 'Your recovery code is AB2CD-EF3GH. Keep it somewhere safe.' })).toBe('AB2CDEF3GH');
    expect(extractOtp({ html: '<p>Ihr Wiederherstellungscode:</p><p style="font-size:22px"><b>KQWRT-ZXPLM</b></p>' })).toBe('KQWRTZXPLM');
    expect(extractOtp({ text: 'Votre code de secours : 7HQ2K-M4XZP-R8TNW' })).toBe('7HQ2KM4XZPR8TNW');
    expect(extractOtp({ text: 'Twój kod odzyskiwania: QWRTZ-PLMKN' })).toBe('QWRTZPLMKN');
  });

  test('the reasons say which evidence counted', () => {
    expect(extractOtps({ text: 'Your recovery code is AB2CD-EF3GH.' })[0]?.reasons[0]).toBe('dash-joined groups: named a code right before it');
  });

  test('order numbers, promo codes and words in capitals joined by a dash are not codes', () => {
    expect(codes({ text: 'Order ABCD-12345 shipped today. Use the code in the app.' })).toEqual([]);
    expect(codes({ text: 'Promo code: SPRING-SALE24 for 20% off.' })).toEqual([]);
    expect(codes({ html: '<h1>WORLD-CLASS SECURITY</h1><p>Your code arrives shortly.</p>' })).toEqual([]);
    const loose = { text: 'Your code is in the app. Batch 4KQ2X-PLM9R left the warehouse.' };
    expect(codes(loose)).toEqual([]);
    expect(reasonFor(loose, '4KQ2X-PLM9R')).toBe('dash-joined groups, and only a nearby code word says code');
  });

  test('are read right after the code word written in capitals with a space, or after "Code:" with none, in English, Polish, German and Dutch', () => {
    expect(extractOtp({ text: 'YOUR RECOVERY CODE AB2CD-EF3GH\nKeep it somewhere safe.' })).toBe('AB2CDEF3GH');
    expect(extractOtp({ html: '<p style="text-transform:none">CODE AB2CD-EF3GH</p>' })).toBe('AB2CDEF3GH');
    expect(extractOtp({ text: 'Code:AB2CD-EF3GH' })).toBe('AB2CDEF3GH');
    expect(extractOtp({ text: 'TWÓJ KOD QWRTZ-PLMKN' })).toBe('QWRTZPLMKN');
    expect(extractOtp({ text: 'Ihr Code:KQWRT-ZXPLM (15 Minuten gültig)' })).toBe('KQWRTZXPLM');
    expect(extractOtp({ text: 'UW CODE 7HQ2K-M4XZP-R8TNW' })).toBe('7HQ2KM4XZPR8TNW');
  });

  test('words in capitals before a dash-joined identifier still do not make it a code', () => {
    expect(codes({ text: 'ORDER NUMBER ABCD-12345 SHIPPED' })).toEqual([]);
    expect(codes({ text: 'TRACKING 4KQ2X-PLM9R IN TRANSIT. Your code arrives by SMS.' })).toEqual([]);
  });

  test('a code named by what it identifies — an order, a booking, a product, a customer — is not a one-time code', () => {
    expect(codes({ text: 'ORDER CODE 4KQ2X-PLM9R' })).toEqual([]);
    expect(codes({ text: 'Thanks for your purchase. Your order code: 482913' })).toEqual([]);
    expect(codes({ text: 'Booking code: 4KQ2XP. Show it at the desk.' })).toEqual([]);
    expect(codes({ text: 'Reservation code 7HQ2KM' })).toEqual([]);
    expect(codes({ text: 'Product code 558812 is back in stock.' })).toEqual([]);
    expect(codes({ text: 'Your customer code is 918273.' })).toEqual([]);
    // Beside them, the one-time code is still read.
    expect(extractOtp({ text: 'Order code: 4KQ2X-PLM9R.\nYour verification code is 551204.' })).toBe('551204');
  });
});

test.describe('letter codes on a line of their own after a long paragraph that names them', () => {
  test('are read in French, Ukrainian and Czech, however long the paragraph before', () => {
    expect(extractOtp({ text: "Votre code de connexion est indiqué ci-dessous. Veuillez l'entrer dans votre navigateur.\n\nKQTM-WXRB\n\nMerci !" })).toBe('KQTMWXRB');
    expect(extractOtp({ text: 'Нижче наведено код підтвердження електронної пошти. Введіть його у відкритому вікні браузера.\n\nHZDN-PLGV\n' })).toBe('HZDNPLGV');
    expect(extractOtp({ text: 'Níže najdete váš přihlašovací kód. Zadejte jej do otevřeného okna prohlížeče, prosím, co nejdříve.\n\nGMPD-VKSZ\n' })).toBe('GMPDVKSZ');
  });

  test('are read when the paragraph before is hard-wrapped over several lines', () => {
    const text = 'Your sign-in code is listed below.\nPlease enter it in your open browser window\nwithin the next few minutes, thank you.\n\nKQTM-WXRB\n';
    expect(extractOtp({ text })).toBe('KQTMWXRB');
  });

  test('a word on a line of its own after a long paragraph that only mentions a code is not one', () => {
    const source = { text: 'By joining you accept our code of conduct, which every member of the community is expected to read and follow.\n\nMOZART\n' };
    expect(codes(source)).toEqual([]);
    expect(reasonFor(source, 'MOZART')).toBe('letters only: the code word is early in the paragraph before, and only standing apart says code');
  });
});

test.describe('lower-case codes on a line of their own after "enter this code"', () => {
  test('are read in English, German, French, Spanish and Polish, hex included', () => {
    expect(extractOtp({ text: 'Hi,\n\nEnter this code:\n\na3f9c2\n\nThanks' })).toBe('a3f9c2');
    expect(extractOtp({ text: 'Hallo,\n\nGeben Sie diesen Code ein:\n\n9f3k2q7m\n\nDanke' })).toBe('9f3k2q7m');
    expect(extractOtp({ html: '<p>Saisissez ce jeton :</p><p>b7e1a94c</p>' })).toBe('b7e1a94c');
    expect(extractOtp({ text: 'Introduce este código:\n\nx8k2m9\n' })).toBe('x8k2m9');
    expect(extractOtp({ html: '<p>Wpisz ten kod w aplikacji:</p><p><code>e4d2b8f1</code></p>' })).toBe('e4d2b8f1');
  });

  test('the same token inside a sentence, or far from any code word, is not a code', () => {
    const inline = { text: 'Commit a3f9c2e was deployed. Code review by Sam.' };
    expect(codes(inline)).toEqual([]);
    expect(reasonFor(inline, 'a3f9c2e')).toBe('lower case letters and digits: not on a line of its own right after a code or token is named');
    expect(codes({ text: 'Welcome!\n\nbuild 9f3k2q7m\n\nSee you.' })).toEqual([]);
    expect(codes({ text: 'Enter this code:\n\nmp3player\n' })).toEqual(['mp3player']);
  });

  test('the rest of a wrapped URL on the next line is not a code', () => {
    const source = { text: 'Enter this code or open\nhttps://id.example/c?t=\na3f9c2e41\n' };
    expect(codes(source)).toEqual([]);
  });
});

test.describe('long codes the mail asks to copy', () => {
  const hex = '3f2a9c1be4d07f6a8c3e2b1d0f9a7c6e';

  test('are read in English, German, Turkish and Vietnamese, also when the same token is in the link', () => {
    expect(extractOtp({ html: `<p>Copy and paste this verification code into the app: <code>${hex}</code></p><p><a href="https://x.example/verify?token=${hex}">Verify</a></p>` })).toBe(hex);
    expect(extractOtp({ text: 'Kopieren Sie den folgenden Bestätigungscode: JBSWY3DPEHPK3PXPJBSWY3DP' })).toBe('JBSWY3DPEHPK3PXPJBSWY3DP');
    const long = '5e8d1c0b9a7f6e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d';
    expect(extractOtp({ text: `Doğrulama kodunu kopyalayıp uygulamaya yapıştırın:\n\n${long}\n` })).toBe(long);
    expect(extractOtp({ html: `<p>Sao chép mã xác minh sau và dán vào ứng dụng:</p><p style="font-family:monospace">${hex}</p>` })).toBe(hex);
  });

  test('a long token that no one asks to copy (a session id, a hash in a footer) is not a code', () => {
    expect(codes({ text: `Request id: ${hex}. Your code was sent by SMS.` })).toEqual([]);
    expect(codes({ html: `<p>Your sign-in link is below.</p><p><a href="https://x.example/s?t=${hex}">Sign in</a></p><p style="font-size:10px">ref ${hex}</p>` })).toEqual([]);
  });
});

test.describe('a code drawn as an image', () => {
  test('is read from the image alt text, as a client with images off shows it, in English, German and Japanese', () => {
    expect(extractOtp({ html: '<p>Your verification code:</p><p><img src="cid:code" alt="482913"></p>' })).toBe('482913');
    expect(extractOtp({ html: '<p>Ihr Bestätigungscode lautet:</p><table><tr><td><img src="x.png" alt="K7Q2XM"></td></tr></table>' })).toBe('K7Q2XM');
    expect(extractOtp({ html: '<p>認証コード</p><div style="font-size:0"><img src="otp.png" alt="730519" width="200"></div>' })).toBe('730519');
  });

  test('the alt text of a hidden image is not read', () => {
    expect(codes({ html: '<p>Your verification code:</p><p><img src="x.png" alt="482913" style="display:none"></p>' })).toEqual([]);
  });
});
