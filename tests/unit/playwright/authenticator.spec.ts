/**
 * The authenticator's codes and its schedule, without a browser: RFC 6238 and
 * RFC 4226 test vectors, the otpauth:// URI's parameters and their errors, the
 * masking of the secret, and `code()` against an injected clock (a code asked
 * for near the end of a step is the next step's; no code is given twice).
 */
import { createHmac } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { inspect } from 'node:util';
import { expect } from '@playwright/test';
import { test, AuthenticatorError } from '../../../src/playwright/index.ts';
import type { AuthenticatorClock } from '../../../src/playwright/index.ts';
import { planCode } from '../../../src/playwright/authenticator/schedule.ts';
import { findOtpSourceInText, parseOtpAuthUri } from '../../../src/playwright/authenticator/otp-params.ts';
import { MAX_QR_PIXELS, QR_DECODERS_INSTALL, decodeQrPng, importQrDecoders, pngSize } from '../../../src/playwright/authenticator/qr-decode.ts';

/** RFC 4648 base32 of ASCII text, written here so that the vectors do not rest on the code under test. */
function base32(text: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of Buffer.from(text, 'latin1')) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}

/** RFC 4226 §5.3 with node:crypto: an implementation apart from the one under test, as the app's server would have. */
function referenceCode(secretAscii: Buffer, algorithm: string, digits: number, counter: number): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, secretAscii).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const value = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return String(value).padStart(digits, '0');
}

/** A clock the test moves: `sleep(ms)` advances it at once and records the wait. */
function manualClock(startMs: number): AuthenticatorClock & { nowMs: number; slept: number[] } {
  const clock = {
    nowMs: startMs,
    slept: [] as number[],
    now: () => clock.nowMs,
    sleep: async (ms: number) => {
      clock.slept.push(ms);
      clock.nowMs += ms;
    },
  };
  return clock;
}

const SEEDS = {
  SHA1: '12345678901234567890',
  SHA256: '12345678901234567890123456789012',
  SHA512: '1234567890123456789012345678901234567890123456789012345678901234',
} as const;

/** RFC 6238 Appendix B: time (s) → SHA1, SHA256, SHA512 codes (8 digits, 30 s). */
const RFC6238: Array<[number, string, string, string]> = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

test.describe('codes', () => {
  for (const [index, algorithm] of (['SHA1', 'SHA256', 'SHA512'] as const).entries()) {
    test(`the RFC 6238 test vectors come out for ${algorithm}`, async ({ authenticator }) => {
      const device = await authenticator.enroll(`otpauth://totp/RFC:6238?secret=${base32(SEEDS[algorithm])}&algorithm=${algorithm}&digits=8&period=30`);
      for (const [seconds, ...codes] of RFC6238) expect(device.codeAt(seconds * 1000), `T=${seconds}`).toBe(codes[index]);
    });
  }

  test('the RFC 4226 test vectors come out of an HOTP enrolment, one counter per code', async ({ authenticator }) => {
    const device = await authenticator.enroll(`otpauth://hotp/RFC:4226?secret=${base32(SEEDS.SHA1)}&counter=0`);
    const codes = [];
    for (let i = 0; i < 10; i++) codes.push(await device.code());
    expect(codes).toEqual(['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489']);
    expect(device.counter).toBe(10);
  });

  test('an HOTP enrolment starts at its counter', async ({ authenticator }) => {
    const device = await authenticator.enroll(`otpauth://hotp/Bank:bob?secret=${base32(SEEDS.SHA1)}&counter=7`);
    expect(await device.code()).toBe('162583');
    expect(() => device.codeAt(0)).toThrow(/codeAt\(\) needs a time-based \(TOTP\) enrolment/);
  });

  test('SHA-256 with 8 digits and a 60 s period gives the codes an independent implementation computes', async ({ authenticator }) => {
    const seed = Buffer.from('an example secret of 32 bytes!!!', 'latin1');
    const device = await authenticator.enroll(`otpauth://totp/Acme:alice%40example.com?secret=${base32(seed.toString('latin1'))}&issuer=Acme&algorithm=SHA256&digits=8&period=60`);
    expect([device.issuer, device.account, device.algorithm, device.digits, device.period]).toEqual(['Acme', 'alice@example.com', 'SHA256', 8, 60]);
    for (const seconds of [0, 59, 60, 1_700_000_000, 1_700_000_059, 1_700_000_060]) {
      expect(device.codeAt(seconds * 1000), `T=${seconds}`).toBe(referenceCode(seed, 'sha256', 8, Math.floor(seconds / 60)));
    }
  });
});

test.describe('the otpauth:// URI', () => {
  test('what the URI leaves out takes RFC 6238\'s defaults', () => {
    expect(parseOtpAuthUri('otpauth://totp/alice?secret=jbswy3dpehpk3pxp')).toEqual({
      type: 'totp', secret: 'JBSWY3DPEHPK3PXP', issuer: undefined, account: 'alice', algorithm: 'SHA1', digits: 6, period: 30, counter: 0,
    });
  });

  test('the issuer parameter wins over the label\'s prefix, and the label is percent-decoded', () => {
    const params = parseOtpAuthUri('otpauth://totp/Old%20Name:bob%2Btag%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=New%20Name&algorithm=sha512&digits=7&period=45');
    expect([params.issuer, params.account, params.algorithm, params.digits, params.period]).toEqual(['New Name', 'bob+tag@example.com', 'SHA512', 7, 45]);
  });

  const bad: Array<[string, string, RegExp]> = [
    ['a malformed URI', 'otpauth:/ /totp', /the type is "", not "totp" or "hotp"|not a URI/],
    ['another scheme', 'https://example.com/?secret=JBSWY3DPEHPK3PXP', /neither an otpauth:\/\/ URI nor a base32 secret/],
    ['an unknown type', 'otpauth://motp/x?secret=JBSWY3DPEHPK3PXP', /the type is "motp", not "totp" or "hotp"/],
    ['no secret', 'otpauth://totp/x?issuer=Acme', /the "secret" parameter is missing/],
    ['a secret that is not base32', 'otpauth://totp/x?secret=JBSW1890', /the secret is not base32/],
    ['an unsupported algorithm', 'otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&algorithm=MD5', /the algorithm "MD5" is not supported.*SHA1, SHA256 and SHA512/],
    ['9 digits', 'otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&digits=9', /digits="9" is not supported.*from 6 to 8/],
    ['a period of 0', 'otpauth://totp/x?secret=JBSWY3DPEHPK3PXP&period=0', /period="0" is not supported/],
    ['an HOTP URI without its counter', 'otpauth://hotp/x?secret=JBSWY3DPEHPK3PXP', /the "counter" parameter is missing/],
    ['a word that is not a secret', 'hello world!', /"hello world!" is neither an otpauth:\/\/ URI nor a base32 secret/],
  ];
  for (const [what, source, message] of bad) {
    test(`${what} is refused with an error that says why`, async ({ authenticator }) => {
      const error = await authenticator.enroll(source).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticatorError);
      expect((error as Error).message).toMatch(message);
    });
  }

  test('a page instead of a locator is refused, saying so', async ({ authenticator }) => {
    const notALocator = { locator: () => undefined } as unknown as string;
    await expect(authenticator.enroll(notALocator)).rejects.toThrow(/was given a page or frame, not a locator; pass a locator of the QR code/);
  });

  test('an error never shows the whole secret', async ({ authenticator }) => {
    const error = await authenticator.enroll('otpauth://totp/x?secret=GEZDGNBVGY3TQOJQGEZDGNBV&algorithm=MD5').then(() => new Error('enrolled'), (e: unknown) => e as Error);
    expect(error.message).toContain('GEZD…(24 characters)');
    expect(error.message).not.toContain('GEZDGNBVGY3TQOJQGEZDGNBV');
  });

  test('a secret is found in text that shows it in groups, and a URI inside text', () => {
    expect(findOtpSourceInText('Can\'t scan? Enter this key: JBSW Y3DP EHPK 3PXP GEZD GNBV')).toBe('JBSWY3DPEHPK3PXPGEZDGNBV');
    expect(findOtpSourceInText('Link: otpauth://totp/A:b?secret=JBSWY3DPEHPK3PXP (tap to add)')).toBe('otpauth://totp/A:b?secret=JBSWY3DPEHPK3PXP');
    expect(findOtpSourceInText('Scan this code with your authenticator app')).toBeNull();
  });
});

test.describe('the device', () => {
  test('the secret is readable but never printed whole', async ({ authenticator }) => {
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    const device = await authenticator.enroll(secret);
    expect(device.secret).toBe(secret);
    expect(device.uri).toBe(`otpauth://totp/?secret=${secret}&algorithm=SHA1&digits=6&period=30`);
    for (const shown of [inspect(device), JSON.stringify(device), device.describe(), String(device), `${device}`]) {
      expect(shown).not.toContain(secret);
      expect(shown).toContain('GEZD…(32 characters)');
    }
  });

  test('String(device) and a template literal read as console.log does, never [object Object]', async ({ authenticator }) => {
    const device = await authenticator.enroll('otpauth://totp/Acme:alice%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=Acme');
    expect(String(device)).toBe(inspect(device));
    expect(`${device}`).toBe('AuthenticatorDevice { Acme (alice@example.com), TOTP SHA1, 6 digits, 30 s, secret GEZD…(32 characters) }');
  });
});

test.describe('code() and time', () => {
  const SECRET = base32(SEEDS.SHA1);

  test('a code asked for 1 s before its step ends is the next step\'s, after waiting for that step', async ({ authenticator }) => {
    const clock = manualClock(1_700_000_000_000 + 29_000 - (1_700_000_000_000 % 30_000));
    const device = await authenticator.enroll(SECRET, { clock });
    const stepStart = Math.ceil(clock.nowMs / 30_000) * 30_000;
    expect(stepStart - clock.nowMs).toBe(1000);
    const code = await device.code();
    expect(clock.slept).toEqual([1000]);
    expect(code).toBe(referenceCode(Buffer.from(SEEDS.SHA1), 'sha1', 6, stepStart / 30_000));
    expect(code).not.toBe(device.codeAt(stepStart - 1000));
  });

  test('with minRemaining 0 a code 1 s before the end is the current one, given at once', async ({ authenticator }) => {
    const clock = manualClock(30_000 * 1000 + 29_000);
    const device = await authenticator.enroll(SECRET, { clock, minRemaining: 0 });
    expect(await device.code()).toBe(device.codeAt(clock.nowMs));
    expect(clock.slept).toEqual([]);
  });

  test('two codes asked for in one step are two different valid codes: the second waits for the next step', async ({ authenticator }) => {
    const clock = manualClock(30_000 * 2000 + 3_000);
    const device = await authenticator.enroll(SECRET, { clock });
    const first = await device.code();
    const second = await device.code();
    expect(first).toBe(referenceCode(Buffer.from(SEEDS.SHA1), 'sha1', 6, 2000));
    expect(second).toBe(referenceCode(Buffer.from(SEEDS.SHA1), 'sha1', 6, 2001));
    expect(second).not.toBe(first);
    expect(clock.slept).toEqual([27_000]);
  });

  test('for an app that accepts a code twice, allowCodeReuse gives the step\'s code again at once instead of waiting', async ({ authenticator }) => {
    const clock = manualClock(30_000 * 2000 + 3_000);
    const device = await authenticator.enroll(SECRET, { clock, allowCodeReuse: true });
    const first = await device.code();
    expect(await device.code()).toBe(first);
    expect(clock.slept).toEqual([]);
    // Per call, too: off for one call, that call waits for the next step.
    expect(await device.code({ allowCodeReuse: false })).toBe(referenceCode(Buffer.from(SEEDS.SHA1), 'sha1', 6, 2001));
    expect(clock.slept).toEqual([27_000]);
    // minRemaining still holds: a step nearly over is not given out, reuse or not.
    clock.nowMs = 30_000 * 2002 - 1_000;
    expect(await device.code()).toBe(referenceCode(Buffer.from(SEEDS.SHA1), 'sha1', 6, 2002));
    expect(clock.slept).toEqual([27_000, 1_000]);
  });

  test('a clock whose sleep does not advance it is named instead of looping', async ({ authenticator }) => {
    const device = await authenticator.enroll(SECRET, { clock: { now: () => 60_000 + 29_500, sleep: async () => {} } });
    await expect(device.code()).rejects.toThrow(/the clock did not reach the next time step/);
  });

  test('a clock that does not give a time is named', async ({ authenticator }) => {
    const device = await authenticator.enroll(SECRET, { clock: { now: () => Number.NaN, sleep: async () => {} } });
    await expect(device.code()).rejects.toThrow(/the clock's now\(\) gave NaN, not a time/);
  });

  test('a minRemaining as long as the period is refused', async ({ authenticator }) => {
    await expect(authenticator.enroll(SECRET, { minRemaining: 30 })).rejects.toThrow(/minRemaining 30 is out of range for a 30 s period/);
  });

  test('an async clock (such as the browser\'s under page.clock) is followed', async ({ authenticator }) => {
    // #region hand-clock
    let nowMs = 90_000 + 28_000;
    const device = await authenticator.enroll(SECRET, { clock: { now: async () => nowMs, sleep: async (ms) => void (nowMs += ms) } });
    // #endregion
    expect(await device.code()).toBe(referenceCode(Buffer.from(SEEDS.SHA1), 'sha1', 6, 4));
  });
});

test.describe('planCode', () => {
  const table: Array<[string, Parameters<typeof planCode>[0], ReturnType<typeof planCode>]> = [
    ['start of a step', { nowMs: 60_000, period: 30, minRemaining: 5, lastStep: undefined }, { step: 2, waitMs: 0 }],
    ['exactly minRemaining left', { nowMs: 85_000, period: 30, minRemaining: 5, lastStep: undefined }, { step: 2, waitMs: 0 }],
    ['less than minRemaining left', { nowMs: 85_001, period: 30, minRemaining: 5, lastStep: undefined }, { step: 3, waitMs: 4_999 }],
    ['the step was used', { nowMs: 61_000, period: 30, minRemaining: 5, lastStep: 2 }, { step: 3, waitMs: 29_000 }],
    ['an older step was used', { nowMs: 61_000, period: 30, minRemaining: 5, lastStep: 1 }, { step: 2, waitMs: 0 }],
    ['a 60 s period', { nowMs: 119_500, period: 60, minRemaining: 5, lastStep: undefined }, { step: 2, waitMs: 500 }],
    ['the step was used, and the app accepts a code twice', { nowMs: 61_000, period: 30, minRemaining: 5, lastStep: 2, allowReuse: true }, { step: 2, waitMs: 0 }],
    ['the step was used and is nearly over, and the app accepts a code twice', { nowMs: 85_001, period: 30, minRemaining: 5, lastStep: 2, allowReuse: true }, { step: 3, waitMs: 4_999 }],
  ];
  for (const [name, input, expected] of table) {
    test(`plans the code's step: ${name}`, () => {
      expect(planCode(input)).toEqual(expected);
    });
  }

  test('a device\'s first code waits less than minRemaining and each further code at most one period: two codes take at most minRemaining plus one period (the worst case docs/authenticator.md states)', () => {
    const [period, minRemaining] = [30, 5];
    const worst = [0, 0, 0]; // total wait for the first 1, 2 and 3 codes
    for (let nowMs = 60_000; nowMs < 60_000 + 2 * period * 1000; nowMs += 250) {
      for (const lastStep of [undefined, Math.floor(nowMs / 30_000) - 1]) {
        let [clock, last, total] = [nowMs, lastStep as number | undefined, 0];
        for (let n = 0; n < 3; n++) {
          const plan = planCode({ nowMs: clock, period, minRemaining, lastStep: last });
          [clock, last, total] = [clock + plan.waitMs, plan.step, total + plan.waitMs];
          worst[n] = Math.max(worst[n]!, total);
        }
      }
    }
    expect(worst[0]).toBeLessThan(minRemaining * 1000);
    expect(worst[1]).toBeLessThanOrEqual((minRemaining + period) * 1000);
    expect(worst[1]).toBeGreaterThan((minRemaining + period) * 1000 - 500);
    expect(worst[2]).toBeLessThanOrEqual((minRemaining + 2 * period) * 1000);
  });
});

test('reading a QR code in a project without the optional jsqr and pngjs names the one install command and the ways that need neither', async () => {
  const missing = async (name: string) => {
    throw Object.assign(new Error(`Cannot find package '${name}'`), { code: 'ERR_MODULE_NOT_FOUND' });
  };
  const error = await importQrDecoders(missing).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AuthenticatorError);
  expect((error as Error).message).toContain(QR_DECODERS_INSTALL);
  expect((error as Error).message).toContain('otpauth:// URI');
  expect(((error as Error).cause as Error).message).toContain("Cannot find package 'pngjs'");
});

test('with jsqr and pngjs installed, the QR decoders load', async () => {
  const [pngjs, jsqr] = await importQrDecoders();
  expect(typeof pngjs.PNG).toBe('function');
  expect(jsqr.default).toBeTruthy();
});

/** A PNG chunk: length, type, data and CRC, as the PNG specification lays them out. */
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A 1-bit grayscale PNG declaring `width`×`height`, whose image data holds only `rows` white rows (all of them when omitted). */
function whitePng(width: number, height: number, rows = height): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([1, 0, 0, 0, 0], 8);
  const row = Buffer.alloc(1 + Math.ceil(width / 8), 0xff);
  row[0] = 0;
  const pixels = deflateSync(Buffer.concat(Array.from({ length: rows }, () => row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', header), pngChunk('IDAT', pixels), pngChunk('IEND', Buffer.alloc(0))]);
}

test.describe('the QR reader checks the picture size before decoding a pixel', () => {
  test('a 20,000 px screenshot is refused from its PNG header, naming its size and the 16 MP bound', async () => {
    // The header declares 400 MP but the data holds two rows: a decoder that started on it would fail (or take 1.6 GB) instead.
    const error = await decodeQrPng(whitePng(20_000, 20_000, 2), 'the screenshot of locator(#qr)').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticatorError);
    expect((error as Error).message).toContain('the screenshot of locator(#qr) is 20000×20000 px (400 MP)');
    expect((error as Error).message).toContain(`${MAX_QR_PIXELS / 1_000_000} MP bound of the QR reader`);
    expect((error as Error).message).toContain('Point the locator at the QR code itself');
  });

  test('a whole, valid picture one pixel row over the bound is refused the same way, without decoding it', async () => {
    const error = await decodeQrPng(whitePng(4000, 4001)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticatorError);
    expect((error as Error).message).toContain('the picture is 4000×4001 px (16 MP), over the 16 MP bound');
  });

  test('a picture within the bound is decoded: a blank one has no QR code', async () => {
    expect(pngSize(whitePng(300, 200))).toEqual({ width: 300, height: 200 });
    expect(await decodeQrPng(whitePng(300, 200))).toBeNull();
  });

  test('bytes that are not a PNG are refused with an error saying so', async () => {
    await expect(decodeQrPng(Buffer.from('GIF89a not a png at all, not at all'))).rejects.toThrow(/the picture is not a PNG picture/);
  });
});
