import { test, expect } from '@playwright/test';
import { extractOtp, extractOtps, OtpNotFoundError } from '../../../src/extract/index.ts';
import { refusal, sms } from './sms-sources.ts';

/**
 * Issue 49: an SMS of one to three sentences whose only number (4–8 digits,
 * at the edge of its sentence) is its code, whatever words label it; and a
 * number set apart under a label ("Your order no.") that is not a code.
 */

test.describe('the only number of a short SMS', () => {
  test('is its code, labelled by a password word in Japanese (full-width colon), Polish, Russian in Latin letters or a Finnish compound', () => {
    expect(extractOtp(sms('【Tasklane】ワンタイムパスワード：482913'))).toBe('482913');
    expect(extractOtp(sms('Twoje hasło jednorazowe: 482913. Nie udostępniaj go nikomu.'))).toBe('482913');
    expect(extractOtp(sms('Vash parol dlya vhoda: 482913'))).toBe('482913');
    expect(extractOtp(sms('Kertakäyttösalasanasi on 482913'))).toBe('482913');
  });

  test('says why in otps()', () => {
    expect(extractOtps(sms('Kertakäyttösalasanasi on 482913'))[0]?.reasons).toContain('the only number of a short message with no subject (an SMS of one to three sentences)');
  });

  test('is read with a particle clinging to it, or beside text written without spaces', () => {
    expect(extractOtp(sms('Tasklane에 로그인하려면 이 일회용 비밀번호 482913를 사용하세요.'))).toBe('482913');
    expect(extractOtp(sms('使用此一次性密码 482913 登录到 Tasklane。'))).toBe('482913');
  });

  test('is not a code when it sits between two words of a sentence, counting or naming something', () => {
    expect(() => extractOtp(sms('Thanks for visiting. We now have 58213 happy users.'))).toThrow(OtpNotFoundError);
    expect(() => extractOtp(sms('Use 482913 to track your parcel.'))).toThrow(OtpNotFoundError);
  });

  test('is not a code when the text holds another number, or more than three sentences', () => {
    expect(() => extractOtp(sms('Hasło: 482913 wygasa za 10 minut.'))).toThrow(OtpNotFoundError);
    expect(extractOtps(sms('Salasana 482913 vanhenee 10 minuutissa.'))[0]?.reasons.join()).not.toContain('the only number');
    expect(() => extractOtp(sms('Hei! Tervetuloa. Kiitos tilauksesta. Toimitus lähtee pian. Salasana on 482913'))).toThrow(OtpNotFoundError);
  });

  test('is not read so in an email: a text with a subject, or with HTML, needs the usual evidence', () => {
    expect(() => extractOtp({ text: 'Kertakäyttösalasanasi on 482913', subject: 'Tervetuloa' })).toThrow(OtpNotFoundError);
    expect(() => extractOtp({ text: 'Kertakäyttösalasanasi on 482913', html: '<p>Kertakäyttösalasanasi on 482913</p>' })).toThrow(OtpNotFoundError);
  });

  test('is still refused when a label names it (an order, a card)', () => {
    const order = refusal(sms('Your order 48213 has shipped.'));
    expect(order.rejected.find((r) => r.raw === '48213')?.reason).toContain('labelled');
  });
});

test.describe('a number set apart under a label in the paragraph before', () => {
  const order = (label: string, number: string) => ({
    html: `<div><div>${label}</div><div><span style="font-size: 28px; border: 1px solid #eee">${number}</span></div><div>has been successfully placed.</div><a href="https://shop.example/order/x1">View order</a></div>`,
    subject: 'Order confirmation',
  });

  test('is not a one-time code, and otps() says which label ruled it out', () => {
    for (const label of ['Your order no.', 'Ihre Bestellnummer', 'Votre commande n°', 'Číslo vaší objednávky.', 'Номер заказа', '№ вашого замовлення.', 'Comanda dvs. nr.']) {
      const error = refusal(order(label, '000075956'));
      expect(error.rejected.find((r) => r.raw === '000075956')?.reason, label).toMatch(/^set apart under ".+" \(the paragraph before labels it: not a one-time code\)$/);
    }
  });

  test('is still the code when the paragraph before names a code for the order', () => {
    expect(extractOtp({ html: '<p>Your verification code for order 123 is:</p><p><b>482913</b></p>', subject: 'Verify' })).toBe('482913');
  });
});

test.describe('compound words whose last part means code', () => {
  test('name a code in Finnish, Estonian and Icelandic, also in an SMS with a second number', () => {
    expect(extractOtp({ text: 'Vahvistuskoodisi on 482913 ja se on voimassa 5 minuuttia.', subject: 'Kirjautuminen' })).toBe('482913');
    expect(extractOtp(sms('Teie kinnituskood on 482913, kehtib 5 minutit.'))).toBe('482913');
    expect(extractOtp(sms('Staðfestingarkóðinn þinn er 482913 og gildir í 5 mínútur.'))).toBe('482913');
  });
});
