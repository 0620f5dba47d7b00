/**
 * What the extraction functions read: the decoded bodies of one message.
 *
 * @example
 * ```ts
 * extractLinks({ html: message.html, text: message.text, baseUrl: 'https://app.example.com' });
 * ```
 */
export interface ExtractInput {
  /** The (sanitized) HTML body, or `null`/absent when the message has none. */
  html?: string | null;
  /** The plain-text body, or `null`/absent when the message has none. */
  text?: string | null;
  /** The subject line; a one-time code may be there only. Not used for links. */
  subject?: string | null;
  /**
   * Base against which relative hrefs are resolved. Mail sanitizers remove
   * `<base>`, so it has to be given here.
   * @defaultValue none: relative hrefs are kept as written
   */
  baseUrl?: string;
}

/**
 * Either an {@link ExtractInput} or a single string. A string that contains
 * HTML tags is read as HTML, otherwise as plain text.
 */
export type ExtractSource = ExtractInput | string;

/** An input with its bodies normalised: empty strings become `null`. */
export interface NormalizedInput {
  html: string | null;
  text: string | null;
  subject: string | null;
  baseUrl: string | undefined;
}

const HTML_TAG = /<(?:!doctype|html|head|body|div|p|a|table|tr|td|th|span|br|strong|b|em|i|h[1-6]|img|ul|ol|li|center|font|section|code|pre)\b[^>]*>/i;

/** Whether a string looks like HTML rather than plain text. */
export function looksLikeHtml(value: string): boolean {
  return HTML_TAG.test(value);
}

/** Turns either accepted input form into a {@link NormalizedInput}. */
export function normalizeInput(source: ExtractSource): NormalizedInput {
  if (typeof source === 'string') {
    const isHtml = looksLikeHtml(source);
    return { html: isHtml ? source : null, text: isHtml ? null : decodeRawQuotedPrintable(source), subject: null, baseUrl: undefined };
  }
  if (source === null || typeof source !== 'object') {
    throw new TypeError(`inboxkit extraction expects a string or { html, text, subject, baseUrl }, got ${source === null ? 'null' : typeof source}. Pass the message body (or the received message) instead.`);
  }
  const blank = (v: string | null | undefined): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
  const text = blank(source.text);
  return {
    html: blank(source.html),
    text: text === null ? null : decodeRawQuotedPrintable(text),
    subject: blank(source.subject),
    baseUrl: source.baseUrl,
  };
}

const SOFT_BREAK = /=\r?\n/;
const QP_ESCAPE = /=[0-9A-F]{2}/;
const ANY_EQUALS = /=(?:\r?\n|[0-9A-F]{2})?/g;

/**
 * Decodes a text body that still carries quoted-printable encoding (a mail
 * whose transfer encoding was lost on the way). Only text that is
 * unambiguously QP is touched: it must contain at least one soft line break
 * (`=` at the end of a line), at least one `=XX` escape, and every `=` in it
 * must be one of those two forms. Anything else is returned unchanged.
 */
export function decodeRawQuotedPrintable(text: string): string {
  if (!SOFT_BREAK.test(text) || !QP_ESCAPE.test(text)) return text;
  for (const m of text.matchAll(ANY_EQUALS)) {
    if (m[0] === '=') return text;
  }
  return text.replace(/=\r?\n/g, '').replace(/(?:=[0-9A-F]{2})+/g, (run) => {
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
    return new TextDecoder('utf-8').decode(bytes);
  });
}
