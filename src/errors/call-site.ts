/**
 * Errors that point at the caller's line. A wait fails long after it was
 * called, from a timer or a stream callback, so its error's own stack names
 * only inboxkit's internals; {@link captureCallSite} records where the caller
 * started the wait (cheaply: V8 formats the frames only when they are read),
 * and {@link atCallSite} gives the error that stack. Synchronous failures
 * (`link()`, `otp()`) are re-captured with {@link throwFromCall}.
 *
 * @packageDocumentation
 */
import { fileURLToPath } from 'node:url';
import { InboxkitError } from './inboxkit-error.ts';

/** Where a call was made: the frames below the called function. */
export interface CallSite {
  /** The frames (`    at …` lines), read on first use. */
  readonly frames: () => string;
}

/** A source location, as Playwright's `test.step(…, { location })` takes it. */
export interface CallLocation {
  file: string;
  line: number;
  column: number;
}

// `Function` is what Error.captureStackTrace takes: any function, of any signature.
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type AnyFunction = Function;

/**
 * Records the stack of the current call, leaving out `called` and every frame
 * above it, so that the first frame is the line that called `called`.
 */
export function captureCallSite(called: AnyFunction): CallSite {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, called);
  let frames: string | null = null;
  return {
    frames: () => (frames ??= (holder.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line)).join('\n')),
  };
}

/**
 * Gives an inboxkit error the stack of `site`: `Name: message` followed by the
 * caller's frames. Other errors (a bug, a TypeError from a user's predicate)
 * keep their own stack, which says more. Returns the error.
 */
export function atCallSite<E>(error: E, site: CallSite): E {
  if (error instanceof InboxkitError) {
    const frames = site.frames();
    if (frames !== '') error.stack = `${error.name}: ${error.message}\n${frames}`;
  }
  return error;
}

/**
 * Runs `fn`; an inboxkit error it throws is re-captured so that its stack
 * starts at the line that called `called`.
 */
export function throwFromCall<T>(called: AnyFunction, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof InboxkitError) Error.captureStackTrace(error, called);
    throw error;
  }
}

/** The first frame of a call site as a location (`file`, `line`, `column`), or `undefined`. */
export function callLocation(site: CallSite): CallLocation | undefined {
  let text = (site.frames().split('\n')[0] ?? '').trim().replace(/^at /, '');
  const paren = text.indexOf(' (');
  if (paren >= 0 && text.endsWith(')')) text = text.slice(paren + 2, -1);
  const match = /^(.+):(\d+):(\d+)$/.exec(text);
  if (!match) return undefined;
  const where = match[1]!;
  const file = where.startsWith('file://') ? fileURLToPath(where) : where;
  return { file, line: Number(match[2]), column: Number(match[3]) };
}
