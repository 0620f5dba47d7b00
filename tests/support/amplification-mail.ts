/**
 * An amplification email: one inline image referenced many times from its
 * HTML, as issue 31 measured it (10 KB referenced 10,000 times, a 184 KB mail).
 */
import { randomBytes } from 'node:crypto';

/** The raw message and what it is made of. */
export interface AmplificationMail {
  raw: Buffer;
  /** The image's bytes. */
  image: Buffer;
  references: number;
}

/**
 * Builds the raw RFC 5322 message: a multipart/related HTML body with
 * `references` `<img src="cid:logo@amp">` and one PNG part of `imageBytes`.
 */
export function amplificationMail(options: { references: number; imageBytes: number; to?: string }): AmplificationMail {
  // A PNG signature followed by noise: the MIME type decides, nothing decodes it.
  const image = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(options.imageBytes - 8)]);
  const html = `<html><body>${'<img src="cid:logo@amp" alt="x">'.repeat(options.references)}</body></html>`;
  const base64 = image.toString('base64').replace(/.{76}/g, '$&\r\n');
  const raw = Buffer.from(
    `From: amp@example.test\r\nTo: ${options.to ?? 'victim@inboxkit.test'}\r\nSubject: amplification\r\nMIME-Version: 1.0\r\n` +
      'Content-Type: multipart/related; boundary="rel"\r\n\r\n' +
      `--rel\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n` +
      `--rel\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\nContent-ID: <logo@amp>\r\nContent-Disposition: inline\r\n\r\n${base64}\r\n--rel--\r\n`,
  );
  return { raw, image, references: options.references };
}
