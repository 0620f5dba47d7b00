/**
 * RFC 2047 encoded words (`=?utf-8?Q?…?=`, `=?iso-8859-1?B?…?=`) in header
 * values, decoded with the runtime's TextDecoder. A word in an unknown charset
 * or with broken encoding is left as it was; whitespace between two adjacent
 * encoded words is dropped, as RFC 2047 section 6.2 says.
 *
 * @example
 * ```ts
 * decodeHeaderWords('=?utf-8?Q?caf=C3=A9?= ok'); // 'café ok'
 * ```
 */
export function decodeHeaderWords(value: string): string {
  if (!value.includes('=?')) return value;
  return value
    .replace(/(\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?\s]+)\?([bBqQ])\?([^?\s]*)\?=/g, (word, charset: string, encoding: string, text: string) => {
      try {
        const label = charset.split('*')[0] ?? charset;
        const bytes =
          encoding.toUpperCase() === 'B'
            ? Buffer.from(text, 'base64')
            : Buffer.from(
                text.replace(/_/g, ' ').replace(/=([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
                'latin1',
              );
        return new TextDecoder(label).decode(bytes);
      } catch {
        return word;
      }
    });
}
