import { test, expect } from '@playwright/test';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { JSDOM } from 'jsdom';
import { createSanitizer } from '../../../src/server/mail/sanitize.ts';
import { printFigure } from '../../support/figures.ts';
import { corpusDir, corpusSkip } from '../../support/corpora.ts';

const enmime = corpusDir('mime-enmime');

async function emlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? emlFiles(join(dir, entry.name)) : Promise.resolve(entry.name.endsWith('.raw') || entry.name.endsWith('.eml') ? [join(dir, entry.name)] : []))));
  return nested.flat();
}

test('every HTML body of the enmime corpus sanitizes to HTML that sanitizes to itself, without script, handlers or script URLs, its cid: images resolved', async () => {
  test.skip(enmime === null, corpusSkip('mime-enmime'));
  const files = await emlFiles(enmime!);
  const sanitizer = createSanitizer();
  const { document } = new JSDOM('').window;
  let bodies = 0;
  let resolvedCids = 0;
  try {
    for (const file of files) {
      const parsed = await simpleParser(await readFile(file), { keepCidLinks: true });
      if (typeof parsed.html !== 'string') continue;
      bodies++;
      const contentIds = new Set(parsed.attachments.map((attachment) => attachment.contentId?.replace(/^<|>$/g, '')).filter(Boolean));
      const options = { resolveCid: (cid: string) => (contentIds.has(cid) ? `https://files.inboxkit.test/${encodeURIComponent(cid)}` : null) };
      const once = await sanitizer.sanitize(parsed.html, options);
      expect(await sanitizer.sanitize(once, options), `${file} sanitized twice`).toBe(once);
      const container = document.createElement('div');
      container.innerHTML = once;
      resolvedCids += container.querySelectorAll('img[src^="https://files.inboxkit.test/"]').length;
      expect(container.querySelector('script, iframe, object, embed, form, base, meta, link'), file).toBeNull();
      for (const element of container.querySelectorAll('*')) {
        for (const attribute of element.attributes) {
          expect(attribute.name, file).not.toMatch(/^on/i);
          expect(attribute.value, file).not.toMatch(/^\s*(?:javascript|vbscript):/i);
        }
      }
    }
  } finally {
    sanitizer.close();
  }
  printFigure(`enmime corpus: ${files.length} messages, ${bodies} HTML bodies sanitized, ${resolvedCids} cid: images resolved`);
  expect(bodies).toBeGreaterThan(10);
  // mail/html-mime-inline.raw and its siblings reference inline parts by cid:.
  expect(resolvedCids).toBeGreaterThan(0);
});
