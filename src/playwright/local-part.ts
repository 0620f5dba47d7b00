/**
 * The local part (`…@domain`) of a test's inbox: readable in the server's list
 * and in a report, telling the test and the worker apart, and unique thanks to
 * a random suffix.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';

/** What a test's local part is made from. */
interface LocalPartInput {
  /** The test's title. */
  title: string;
  /** `testInfo.workerIndex`. */
  workerIndex: number;
  /** `testInfo.retry`. */
  retry?: number;
  /** How many inboxes the test created before this one (0 for the first). */
  sequence?: number;
  /** The random suffix; a fresh one when absent. */
  random?: string;
}

/** The longest slug of the title kept in a local part. */
const MAX_SLUG = 32;

/** Lower-case ASCII letters and digits of a title, runs of anything else as one `-`, at most 32 characters. */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, MAX_SLUG).replace(/-+$/, '') || 'test';
}

/** Six random base-36 characters. */
export function randomSuffix(): string {
  return BigInt(`0x${randomBytes(5).toString('hex')}`).toString(36).padStart(6, '0').slice(-6);
}

/**
 * A local part such as `signs-up-with-a-link-w3-k2x9q1`: the test's title as a
 * slug, the worker (`w3`), the retry (`r1`, only on retries), the inbox's rank
 * in the test (`n2`, from the second inbox on) and a random suffix. Always
 * valid for the API (letters, digits and `-`, at most 64 characters).
 *
 * @example
 * ```ts
 * localPartFor({ title: 'Signs up with a link', workerIndex: 3, random: 'k2x9q1' }); // 'signs-up-with-a-link-w3-k2x9q1'
 * ```
 */
export function localPartFor(input: LocalPartInput): string {
  const parts = [slugify(input.title), `w${input.workerIndex}`];
  if (input.retry) parts.push(`r${input.retry}`);
  if (input.sequence) parts.push(`n${input.sequence + 1}`);
  parts.push(input.random ?? randomSuffix());
  return parts.join('-').slice(0, 64);
}
