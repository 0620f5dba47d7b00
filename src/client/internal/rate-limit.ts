import type { RateLimit } from '../core/types.ts';

function num(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}

/** Reads `X-RateLimit-Limit`, `-Remaining` and `-Reset` from lower-cased headers. */
export function readRateLimit(headers: Record<string, string>): RateLimit {
  return {
    limit: num(headers['x-ratelimit-limit']),
    remaining: num(headers['x-ratelimit-remaining']),
    reset: num(headers['x-ratelimit-reset']),
  };
}

/** Flattens undici's header object: lower-cased names, repeated values joined with `, `. */
export function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
