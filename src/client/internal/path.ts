import { InboxkitError } from '../core/errors.ts';

/**
 * Builds a path whose interpolated values are percent-encoded, refusing empty
 * ones and the dot segments `.` and `..` (which a URL resolves away: `..` as an
 * attachment id would ask for the message itself).
 *
 * @example
 * ```ts
 * path`/messages/${id}/attachments/${attachmentId}`
 * ```
 */
export function path(strings: TemplateStringsArray, ...values: string[]): string {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    const where = strings.join('{…}');
    if (typeof value !== 'string' || value === '') {
      throw new InboxkitError(`An id in ${where} is ${value === '' ? 'empty' : `not a string (${typeof value})`}; pass the id the API returned (e.g. inbox.id).`);
    }
    if (value === '.' || value === '..') {
      throw new InboxkitError(`An id in ${where} is ${JSON.stringify(value)}, a dot segment that would change which resource the URL names; pass the id the API returned (e.g. message.attachments[0].id).`);
    }
    out += encodeURIComponent(value) + (strings[i + 1] ?? '');
  });
  return out;
}
