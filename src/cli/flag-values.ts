/**
 * How the flags of `inboxkit serve` read their values (ports, sizes,
 * durations, counts, URLs): each throws a {@link UsageError} naming the flag
 * when it cannot.
 *
 * @packageDocumentation
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from './usage.ts';

/** A flag's text as it is. */
export const text = (value: string): string => value;

/** A TCP port (0 to 65535). */
export function port(value: string, flag: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`${flag} must be a port number from 0 to 65535, got "${value}".`);
  return n;
}

/** A size in bytes, with an optional unit (k, m). */
export function size(value: string, flag: string): number {
  const match = /^(\d+)\s*([kKmM]?)[bB]?$/.exec(value.trim());
  if (!match) throw new UsageError(`${flag} must be a number of bytes, optionally with a k or m suffix (e.g. 10m), got "${value}".`);
  const unit = match[2]?.toLowerCase();
  const n = Number(match[1]) * (unit === 'k' ? 1024 : unit === 'm' ? 1024 * 1024 : 1);
  if (n < 1) throw new UsageError(`${flag} must be at least 1 byte.`);
  return n;
}

/** A duration in milliseconds: bare milliseconds, or with an ms, s or m unit. */
/** A duration (ms, s, m, h, d) in milliseconds. */
export function duration(value: string, flag: string): number {
  const match = /^(\d+)\s*(ms|s|m)?$/.exec(value.trim());
  if (!match) throw new UsageError(`${flag} must be a duration: milliseconds, or a number with ms, s or m (e.g. 500ms, 30s, 2m), got "${value}".`);
  const unit = match[2] ?? 'ms';
  return Number(match[1]) * (unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1);
}

/** A lifetime in seconds: bare seconds, or with an s, m, h or d unit. */
/** A lifetime in seconds, or a duration. */
export function lifetime(value: string, flag: string): number {
  const match = /^(\d+)\s*([smhd])?$/.exec(value.trim());
  if (!match || Number(match[1]) < 1) throw new UsageError(`${flag} must be a lifetime: seconds, or a number with s, m, h or d (e.g. 3600, 90m, 7d), or "never", got "${value}".`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as 's' | 'm' | 'h' | 'd' ?? 's'];
}

/** A whole number of at least 1. */
export function count(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} must be a whole number of at least 1, got "${value}".`);
  return Number(value);
}

/** A parser that maps one keyword to a value and hands anything else to `parse`. */
/** A value, or one keyword meaning another. */
export const orKeyword = <T>(keywords: string[], result: T, parse: (value: string, flag: string) => unknown) => (value: string, flag: string) =>
  keywords.includes(value) ? result : parse(value, flag);

/** A whole number, or a keyword. */
export function wholeNumber(what: string, keyword: string) {
  return (value: string, flag: string): number => {
    if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a number of ${what} or "${keyword}", got "${value}".`);
    return Number(value);
  };
}

/** An SMTP relay URL (smtp:// or smtps://). */
export function relayUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag} must be a URL like smtp://127.0.0.1:1025, got "${value}".`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new UsageError(`${flag} must use smtp:// or smtps://, got "${value}".`);
  return value;
}

/** The contents of a PEM file. */
export async function pemFile(path: string, flag: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (error) {
    throw new UsageError(`${flag}: cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give the path of a PEM file.`);
  }
}

/** A SQLite file path, or a PostgreSQL URL (any other URL scheme is refused). */
/** A SQLite file path or a postgres:// URL. */
export function database(value: string, flag: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new UsageError(`${flag} must be a SQLite file path or a postgres:// URL, got a ${scheme}:// URL.`);
  }
  if (value.trim() === '') throw new UsageError(`${flag} must not be empty: give a SQLite file path or a postgres:// URL.`);
  return value;
}

/** A parser that accepts one of `values`. */
/** One of a list of words. */
export const oneOf = (values: string[]) => (value: string, flag: string): string => {
  if (!values.includes(value)) throw new UsageError(`${flag} must be one of ${values.join(', ')}, got "${value}".`);
  return value;
};

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** A pino log level. */
export function logLevel(value: string, flag: string): string {
  if (!LOG_LEVELS.includes(value)) throw new UsageError(`${flag} must be one of ${LOG_LEVELS.join(', ')}, got "${value}".`);
  return value;
}

