import { InboxkitError } from '../errors.ts';

/**
 * Builds a path whose interpolated values are percent-encoded, refusing empty ones.
 *
 * @example
 * ```ts
 * path`/messages/${id}/attachments/${attachmentId}`
 * ```
 */
export function path(strings: TemplateStringsArray, ...values: string[]): string {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    if (typeof value !== 'string' || value === '') {
      const where = `${strings.join('{…}')}`;
      throw new InboxkitError(`An id in ${where} is ${value === '' ? 'empty' : `not a string (${typeof value})`}; pass the id the API returned (e.g. inbox.id).`);
    }
    out += encodeURIComponent(value) + (strings[i + 1] ?? '');
  });
  return out;
}
