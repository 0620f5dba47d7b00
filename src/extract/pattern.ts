/**
 * The one way inboxkit matches a string or RegExp against text: criteria of
 * the waits (subject, from, text …) and link filters alike.
 */

function collapse(value: string): string {
  return value.replace(/\s+/g, ' ');
}

/**
 * Whether `value` matches `pattern`. A string matches when `value` contains
 * it, ignoring case and treating any run of whitespace as one space
 * (`'confirm your'` matches `"Confirm\n  your email"`); a RegExp is tested as
 * given, its `g`/`y` flags ignored (so its `lastIndex` is neither read nor moved).
 *
 * @example
 * ```ts
 * matchesPattern('confirm your', 'Confirm\n your email'); // true
 * matchesPattern(/^confirm/, 'Confirm your email');        // false
 * ```
 */
export function matchesPattern(pattern: string | RegExp, value: string): boolean {
  if (typeof pattern === 'string') return collapse(value).toLowerCase().includes(collapse(pattern).toLowerCase());
  const flags = pattern.flags.replace(/[gy]/g, '');
  return new RegExp(pattern.source, flags).test(value);
}

/** A pattern as it reads in a description: a quoted string or the RegExp literal. */
export function showPattern(pattern: string | RegExp): string {
  return typeof pattern === 'string' ? JSON.stringify(pattern) : String(pattern);
}
