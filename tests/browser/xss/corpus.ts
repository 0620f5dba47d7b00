import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** One hostile email body from a corpus. */
export interface Vector {
  /** Unique and readable: corpus, index and title. */
  key: string;
  html: string;
}

/** ../shared/corpora/xss beside the repository (tests/browser/xss -> repo -> ..). */
const corpusDir = join(import.meta.dirname, '../../../../shared/corpora/xss');

/** DOMPurify's own fixtures (test/fixtures/expect.mjs): every payload. */
export async function dompurifyVectors(): Promise<Vector[]> {
  const module = (await import(pathToFileURL(join(corpusDir, 'dompurify-expect.mjs')).href)) as { default: { title: string; payload: string }[] };
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
  const markdown = await readFile(join(corpusDir, 'owasp-xss-filter-evasion.md'), 'utf8');
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
