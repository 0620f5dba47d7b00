/**
 * The command lines of docs/team-service.md, read from the guide itself, so
 * that the team harness runs what a stranger following the guide runs: the
 * nodes' `inboxkit serve` line, the command that makes the TLS files, and
 * Postfix's start. Only the guide's example values are swapped for the
 * harness's own (loopback addresses, free ports, folders of its own); every
 * flag is the guide's.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const GUIDE_PATH = fileURLToPath(new URL('../../docs/team-service.md', import.meta.url));

/** The fenced blocks of the guide, with their language. */
export function guideBlocks(guide = readFileSync(GUIDE_PATH, 'utf8')): Array<{ lang: string; body: string }> {
  return [...guide.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1] ?? '', body: m[2] ?? '' }));
}

/** The guide's shell command that starts with `start` (continuation lines joined), split into words. */
export function guideCommand(start: string, guide?: string): string[] {
  for (const block of guideBlocks(guide)) {
    if (block.lang !== 'bash') continue;
    const lines = block.body.replace(/\\\n\s*/g, ' ').split('\n');
    const line = lines.find((l) => l.trim().startsWith(start));
    if (line !== undefined) return line.replace(/\s+#.*$/, '').trim().split(/\s+/);
  }
  throw new Error(`docs/team-service.md has no bash command starting with "${start}"`);
}

/** The value that follows `flag` in a command's words, or null. */
export function flagValue(words: readonly string[], flag: string): string | null {
  const at = words.indexOf(flag);
  return at === -1 ? null : (words[at + 1] ?? null);
}

/** A duration as the guide writes it (`4s`, `25s`, `500ms`), in ms. */
export function durationMs(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value);
  if (!m) throw new Error(`not a duration: ${value}`);
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
}

/** Swaps the guide's example values in `words` (whole words, or a path's leading folder) for the harness's own. */
export function localize(words: readonly string[], values: Record<string, string>): string[] {
  return words.map((word) => {
    if (values[word] !== undefined) return values[word]!;
    const folder = Object.keys(values).find((key) => key.startsWith('/') && word.startsWith(`${key}/`));
    return folder === undefined ? word : values[folder] + word.slice(folder.length);
  });
}
