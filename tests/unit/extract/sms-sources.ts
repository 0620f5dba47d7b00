/**
 * Helpers of the extraction specs that read SMS: a text as the service hands
 * an SMS over (no subject, no HTML), and the refusal `extractOtp` throws.
 */
import { extractOtp, OtpNotFoundError, type ExtractSource } from '../../../src/extract/index.ts';

/** An SMS's text as an extraction source. */
export const sms = (text: string): ExtractSource => ({ text, html: null, subject: '' });

/** The `OtpNotFoundError` extracting a code from `source` throws; fails the test when a code is returned. */
export function refusal(source: ExtractSource): OtpNotFoundError {
  try {
    extractOtp(source);
  } catch (e) {
    if (e instanceof OtpNotFoundError) return e;
    throw e;
  }
  throw new Error('extractOtp returned a code');
}
