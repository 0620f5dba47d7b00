/**
 * What every command of the CLI shares: where it writes, the usage error, and
 * the argument parser that turns a bad flag into one.
 *
 * @packageDocumentation
 */
import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';

/** Where the command writes. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** A bad invocation: printed with a pointer to `--help`, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Prefix of the machine-readable line `serve` prints once listening. */
export const READY_PREFIX = 'INBOXKIT_READY ';

/** Parses a command's flags (plus `-h`/`--help`); an unknown or malformed flag is a {@link UsageError} followed by the help. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: T, help: string) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: false, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n\n${help}`);
  }
}
