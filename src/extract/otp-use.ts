/**
 * "Use 246810 to verify": a number the message asks the reader to use, enter
 * or type for verifying, confirming or signing in.
 */
import { USE_PURPOSES, USE_VERBS } from './lexicon.ts';

const USE_BEFORE = new RegExp(`(?<![\\p{L}\\p{N}])(?:${[...USE_VERBS].sort((a, b) => b.length - a.length).join('|')})\\s+$`, 'iu');
const USE_AFTER = new RegExp(`^\\s*(?:${[...USE_PURPOSES].sort((a, b) => b.length - a.length).join('|')})(?![\\p{L}])`, 'iu');

/**
 * Whether the words around a number ask the reader to use it to verify,
 * confirm or sign in ("Use 246810 to verify your number", "Gib 246810 ein, um
 * dich anzumelden"): a verb right before it and a purpose right after it.
 * Returns the two, or null.
 */
export function usedTo(before: string, after: string): { verb: string; purpose: string } | null {
  const verb = USE_BEFORE.exec(before);
  const purpose = verb ? USE_AFTER.exec(after) : null;
  return verb && purpose ? { verb: verb[0].trim(), purpose: purpose[0].trim() } : null;
}
