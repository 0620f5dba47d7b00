/**
 * Form bodies (`application/x-www-form-urlencoded`, `multipart/form-data`),
 * read within bounds a caller cannot lift: the body's bytes are counted as
 * they arrive, and its fields are counted (one scan for `&`, or for the
 * multipart boundary, that stops at the first field past the bound) before a
 * single field is decoded or an object built. A 100,000-field form is refused
 * after counting 257 separators, not after building 100,000 entries.
 *
 * @packageDocumentation
 */
import type { Context } from 'hono';
import { HttpError } from './errors.ts';

/** Bounds of {@link parseForm}. */
export interface FormLimits {
  /**
   * Most fields (name=value pairs, or multipart parts) a form may have.
   * @defaultValue 256
   */
  maxFields?: number;
  /**
   * Most bytes of the body.
   * @defaultValue 65_536
   */
  maxBytes?: number;
}

/** A form's fields: one string each, or the strings of a repeated field in order (as Hono's `parseBody({ all: true })`). */
export type FormFields = Record<string, string | string[]>;

/** The default of {@link FormLimits.maxFields}. */
export const DEFAULT_MAX_FORM_FIELDS = 256;
/** The default of {@link FormLimits.maxBytes}. */
export const DEFAULT_MAX_FORM_BYTES = 64 * 1024;

/** Why a form was refused: too many fields, too many bytes, or a part that is not a plain field. */
export class FormError extends HttpError {
  readonly kind: 'fields' | 'bytes' | 'part';
  constructor(kind: 'fields' | 'bytes' | 'part', message: string) {
    super(kind === 'part' ? 'validation_error' : 'payload_too_large', message);
    this.kind = kind;
  }
}

/**
 * How many times `separator` occurs in `body`, counting no further than
 * `stopAfter`: the work is bounded by where the bound is passed, not by the
 * body's length in fields.
 */
export function countSeparators(body: Uint8Array, separator: Uint8Array, stopAfter: number): number {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let count = 0;
  let at = bytes.indexOf(separator);
  while (at >= 0 && count < stopAfter) {
    count++;
    at = bytes.indexOf(separator, at + separator.length);
  }
  return count;
}

/** Reads a request body, refusing it as soon as it passes `maxBytes` (a declared Content-Length over it before reading). */
async function readBounded(request: Request, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => new FormError('bytes', `The form is over the limit of ${maxBytes} bytes; send a smaller form.`);
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, length);
}

function tooManyFields(maxFields: number): FormError {
  return new FormError('fields', `The form has more than ${maxFields} fields, the most this endpoint reads; send only the parameters the API takes.`);
}

function add(fields: FormFields, name: string, value: string): void {
  const held = fields[name];
  if (held === undefined) fields[name] = value;
  else if (Array.isArray(held)) held.push(value);
  else fields[name] = [held, value];
}

const AMPERSAND = new Uint8Array([0x26]);

/** An urlencoded body: its `&`s counted first, then decoded as browsers do (lenient about stray `%`). */
function urlencoded(body: Uint8Array, maxFields: number): FormFields {
  // maxFields separators already make maxFields + 1 fields (an empty one counted too).
  if (countSeparators(body, AMPERSAND, maxFields) >= maxFields) throw tooManyFields(maxFields);
  const fields: FormFields = Object.create(null) as FormFields;
  for (const [name, value] of new URLSearchParams(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'))) add(fields, name, value);
  return fields;
}

/** A multipart body: its boundaries counted first, then parsed by the platform; a file part is refused. */
async function multipart(body: Uint8Array, type: string, maxFields: number): Promise<FormFields> {
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!boundary) throw new FormError('part', 'The multipart form has no boundary in its Content-Type; send it as application/x-www-form-urlencoded.');
  // Each part starts with a delimiter; the last delimiter closes the form.
  if (countSeparators(body, Buffer.from(`--${boundary}`), maxFields + 2) > maxFields + 1) throw tooManyFields(maxFields);
  const form = await new Response(body as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
  const fields: FormFields = Object.create(null) as FormFields;
  for (const [name, value] of form) {
    if (typeof value !== 'string') throw new FormError('part', `The form field ${JSON.stringify(name)} is a file; this endpoint takes text fields only.`);
    add(fields, name, value);
  }
  return fields;
}

/**
 * Reads the request's form within bounds: at most `maxBytes` bytes (counted
 * as they arrive) and `maxFields` fields (counted before any is decoded). A
 * body of another type reads as no fields, as Hono's `parseBody()` does.
 *
 * @throws FormError `payload_too_large` (413) naming the bound passed, or
 *   `validation_error` (400) for a multipart file part; an endpoint that
 *   answers in a provider's words catches it and says the same there.
 * @example
 * ```ts
 * const form = await parseForm(c, { maxFields: 64 });
 * const to = typeof form.To === 'string' ? form.To : '';
 * ```
 */
export async function parseForm(c: Context, limits: FormLimits = {}): Promise<FormFields> {
  const maxFields = limits.maxFields ?? DEFAULT_MAX_FORM_FIELDS;
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_FORM_BYTES;
  const type = c.req.header('content-type') ?? '';
  const urlencodedType = /^application\/x-www-form-urlencoded\b/i.test(type);
  const multipartType = /^multipart\/form-data\b/i.test(type);
  if (!urlencodedType && !multipartType) return Object.create(null) as FormFields;
  const body = await readBounded(c.req.raw, maxBytes);
  return urlencodedType ? urlencoded(body, maxFields) : multipart(body, type, maxFields);
}
