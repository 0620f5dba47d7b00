/**
 * Type tests of the `authenticator` fixture, checked by `npx tsc --noEmit -p tsconfig.json`.
 * Nothing here runs: a use that should type-check and does not, or one that
 * should not and does (`@ts-expect-error` unused), is a compile error.
 */
/* eslint-disable @typescript-eslint/no-unused-vars -- values here exist only for the compiler to inspect */
import { test } from '../../src/playwright/index.ts';
import type { AuthenticatorClock, AuthenticatorDevice, OtpAlgorithm } from '../../src/playwright/index.ts';

test('types', async ({ page, authenticator }) => {
  // A locator, a URI or a secret; options with a clock whose now() may be async.
  const fromQr: AuthenticatorDevice = await authenticator.enroll(page.getByRole('img'));
  const fromUri = await authenticator.enroll('otpauth://totp/A:b?secret=JBSWY3DPEHPK3PXP', { minRemaining: 3, timeout: 5_000 });
  const browserClock: AuthenticatorClock = { now: () => page.evaluate(() => Date.now()), sleep: (ms) => page.clock.runFor(ms) };
  await authenticator.enroll('JBSWY3DPEHPK3PXP', { clock: browserClock });

  const code: string = await fromQr.code();
  const earlier: string = fromUri.codeAt(new Date(0));
  const algorithm: OtpAlgorithm = fromUri.algorithm;
  const secret: string = fromUri.secret;

  // @ts-expect-error a page is not a source: pass a locator of the QR code
  await authenticator.enroll(page);
  // @ts-expect-error the secret is read-only
  fromUri.secret = 'AAAA';
  // @ts-expect-error minRemaining is a number of seconds
  await fromUri.code({ minRemaining: '5s' });
});
