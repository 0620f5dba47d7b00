/**
 * What every SMS provider adapter shares, and none owns: reading form
 * bodies and Basic credentials, random ids, one-line header values, and
 * counting segments as carriers count them.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';

/** A form as Hono's `parseBody()` reads it. */
export type ParsedForm = Record<string, string | File | (string | File)[]>;

/** A form field as one string ('' when absent); the first of repeated fields, as the providers read them. */
export function formField(form: ParsedForm, name: string): string {
  const value = form[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** The user and password of a request's `Authorization: Basic`, or null without one. */
export function basicCredentials(authorization: string | undefined): { user: string; password: string } | null {
  const match = /^Basic[ ]+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** A random hex id of `bytes` bytes. */
export function hexId(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** A header value never carries a line break: a sender id or an id from a request is folded to one line. */
export function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}

/** GSM 03.38's basic character set: one septet each. */
const GSM_BASIC = new Set('@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà');

/** GSM 03.38's extension table: two septets each (the escape, then the character). */
const GSM_EXTENSION = new Set('\f^{}\\[~]|€');

/**
 * How many parts a carrier sends a text in. GSM-7 when every character is in
 * the GSM 03.38 tables: 160 septets in one part, 153 per part beyond, an
 * extension character (`€`, `[`, `{` …) counting two and never split from its
 * escape. Otherwise UCS-2: 70 UTF-16 code units in one part, 67 beyond, an
 * emoji (a surrogate pair) counting two and never split. An empty text is one part.
 */
export function segmentsOf(body: string): number {
  const chars = [...body];
  const gsm = chars.every((ch) => GSM_BASIC.has(ch) || GSM_EXTENSION.has(ch));
  const units = gsm ? chars.map((ch) => (GSM_EXTENSION.has(ch) ? 2 : 1)) : chars.map((ch) => ch.length);
  const [single, perPart] = gsm ? [160, 153] : [70, 67];
  const total = units.reduce((sum, n) => sum + n, 0);
  if (total <= single) return 1;
  let parts = 1;
  let used = 0;
  for (const n of units) {
    if (used + n > perPart) {
      parts += 1;
      used = 0;
    }
    used += n;
  }
  return parts;
}
