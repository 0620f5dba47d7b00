import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { corpusDir, corpusSkip } from '../../support/corpora.ts';

/** One hostile email body from a corpus. */
export interface Vector {
  /** Unique and readable: corpus, index and title. */
  key: string;
  html: string;
}

/** The XSS corpus folder (tests/support/corpora.ts), or null when it has not been fetched. */
export const XSS_DIR = corpusDir('xss');

/** Why a test that needs the XSS corpus is skipped. */
export const XSS_SKIP = corpusSkip('xss');

function xssDir(): string {
  if (XSS_DIR === null) throw new Error(XSS_SKIP);
  return XSS_DIR;
}

/** DOMPurify's own fixtures (test/fixtures/expect.mjs): every payload. */
export async function dompurifyVectors(): Promise<Vector[]> {
  const module = (await import(pathToFileURL(join(xssDir(), 'dompurify-expect.mjs')).href)) as { default: { title: string; payload: string }[] };
  return module.default.map((fixture, index) => ({ key: `dompurify#${index} ${fixture.title}`, html: fixture.payload }));
}

/**
 * The OWASP XSS filter evasion cheat sheet: every fenced code block is a vector.
 * The page's Markdown damaged some blocks: `<` and `>` escaped with a backslash,
 * and no-break spaces (U+00A0) where the author typed spaces, which turn
 * `<BODY ONLOAD=...>` into an unknown element. For those, the repaired form is
 * added as a second vector, so that both what the file says and what the author
 * meant go through the sanitizer and the control run.
 */
export async function owaspVectors(): Promise<Vector[]> {
  const markdown = await readFile(join(xssDir(), 'owasp-xss-filter-evasion.md'), 'utf8');
  const vectors: Vector[] = [];
  let heading = '';
  let block: string[] | null = null;
  let blocks = 0;
  for (const line of markdown.split('\n')) {
    if (block === null) {
      if (line.startsWith('#')) heading = line.replace(/^#+\s*/, '');
      else if (line.startsWith('```')) block = [];
      continue;
    }
    if (line.startsWith('```')) {
      const html = block.join('\n').trim();
      const index = blocks++;
      vectors.push({ key: `owasp#${index} ${heading}`, html });
      const meant = html.replace(/\\([<>])/g, '$1').replaceAll('\u00a0', ' ');
      if (meant !== html) vectors.push({ key: `owasp#${index}r ${heading} (repaired)`, html: meant });
      block = null;
      continue;
    }
    block.push(line);
  }
  return vectors;
}
