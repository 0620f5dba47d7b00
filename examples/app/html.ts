/** HTML helpers shared by the app's pages and its email templates. */

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for use in HTML content and double-quoted attributes.
 *
 * @example escapeHtml('/confirm?a=1&b=2') // '/confirm?a=1&amp;b=2'
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

/**
 * Builds an absolute URL under `base` with properly encoded query parameters.
 *
 * @example appUrl('http://127.0.0.1:3000', '/confirm', { token: 'a+b=', email: 'x@y.example' })
 * // 'http://127.0.0.1:3000/confirm?token=a%2Bb%3D&email=x%40y.example'
 */
export function appUrl(base: string, path: string, query: Record<string, string> = {}): string {
  const search = Object.entries(query)
    .map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&');
  return `${base.replace(/\/+$/, '')}${path}${search ? `?${search}` : ''}`;
}
