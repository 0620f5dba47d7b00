/**
 * Two properties of the sanitizer, over the DOMPurify and OWASP corpora and
 * generated HTML: sanitizing is idempotent, and Chromium's parse of the output,
 * re-serialized and parsed again, still passes the allowlist (no mutation XSS).
 */
import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { ARIA_ATTRIBUTE, EMAIL_ALLOWED_ATTRIBUTES, EMAIL_ALLOWED_TAGS, LINK_ATTRIBUTES, sanitizeHtml } from '../../../src/server/mail/sanitize.ts';
import { dompurifyVectors, owaspVectors, XSS_DIR, XSS_SKIP } from './corpus.ts';
import { generatedHtml } from './generated.ts';
import { printFigure } from '../../support/figures.ts';

const options = { resolveCid: (cid: string) => `https://files.inboxkit.test/cid/${encodeURIComponent(cid)}` };

/** Generated inputs, the same on every run. */
const generated = fc.sample(generatedHtml, { numRuns: 1500, seed: 20 });

async function corpusInputs(): Promise<{ key: string; html: string }[]> {
  if (XSS_DIR === null) return [];
  return [...(await dompurifyVectors()), ...(await owaspVectors())];
}

test('sanitizing is idempotent over the DOMPurify and OWASP corpora', async () => {
  test.skip(XSS_DIR === null, XSS_SKIP);
  const vectors = await corpusInputs();
  expect(vectors.length).toBeGreaterThan(300);
  for (const vector of vectors) {
    const once = sanitizeHtml(vector.html, options);
    expect(sanitizeHtml(once, options), vector.key).toBe(once);
  }
});

test('sanitizing is idempotent over generated HTML (property)', () => {
  fc.assert(
    fc.property(generatedHtml, (html) => {
      const once = sanitizeHtml(html, options);
      expect(sanitizeHtml(once, options)).toBe(once);
    }),
    { numRuns: 3000, seed: 20 },
  );
});

interface Policy {
  tags: string[];
  attributes: string[];
  aria: string;
  linkAttributes: string[];
}

interface Violation {
  index: number;
  stage: string;
  what: string;
}

/**
 * Runs in the page: parses each output as Chromium does (into a `<div>` of this
 * standards-mode page with scripting on, and as a whole quirks-mode document
 * with scripting off, like DOMParser and an iframe's `srcdoc` without doctype),
 * re-serializes each parse, parses that again, and checks every parse against
 * the allowlist.
 */
function checkInPage({ outputs, policy }: { outputs: string[]; policy: Policy }): { violations: Violation[]; checked: number; reserializedDiffers: number } {
  const tags = new Set(policy.tags);
  const attributes = new Set(policy.attributes);
  const linkAttributes = new Set(policy.linkAttributes);
  const aria = new RegExp(policy.aria);
  const violations: Violation[] = [];
  let checked = 0;
  let reserializedDiffers = 0;
  const schemeOf = (url: string) => {
    // eslint-disable-next-line no-control-regex
    const cleaned = url.replace(/^[\u0000-\u0020]+/, '').replace(/[\t\n\r]/g, '');
    return /^([a-z][a-z0-9+.-]*):/i.exec(cleaned)?.[1]?.toLowerCase() ?? null;
  };
  const rasterData = /^data:image\/(?:png|jpeg|jpg|gif|webp|bmp|avif|x-icon|vnd\.microsoft\.icon)[;,]/i;
  const check = (root: Node, index: number, stage: string, structural: Set<string>) => {
    checked++;
    const fail = (what: string) => violations.push({ index, stage, what });
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ALL);
    for (let node: Node | null = walker.nextNode(); node !== null; node = walker.nextNode()) {
      if (node.nodeType === Node.TEXT_NODE) continue;
      if (node.nodeType !== Node.ELEMENT_NODE) {
        fail(`a node of type ${node.nodeType}: ${String(node.nodeValue).slice(0, 80)}`);
        continue;
      }
      const element = node as Element;
      const name = element.localName;
      if (element.namespaceURI !== 'http://www.w3.org/1999/xhtml') fail(`<${name}> in ${element.namespaceURI}`);
      if (structural.has(name)) continue;
      if (!tags.has(name)) fail(`<${name}>`);
      if (name === 'style' && (element.textContent ?? '').includes('<')) fail('"<" in a style block');
      for (const attribute of element.attributes) {
        const attr = attribute.name;
        const allowed = attributes.has(attr) || aria.test(attr) || (name === 'a' && linkAttributes.has(attr));
        if (!allowed) fail(`<${name} ${attr}>`);
        const value = attribute.value;
        if (attr === 'href') {
          const scheme = schemeOf(value);
          if (name !== 'a' || (scheme !== null && !['http', 'https', 'mailto', 'tel', 'sms'].includes(scheme))) fail(`<${name} href="${value.slice(0, 80)}">`);
        }
        if (attr === 'src' || attr === 'background') {
          const scheme = schemeOf(value);
          const ok = (attr === 'background' || name === 'img') && (scheme === 'http' || scheme === 'https' || rasterData.test(value.trim()));
          if (!ok) fail(`<${name} ${attr}="${value.slice(0, 80)}">`);
        }
        if (attr === 'style' && /expression|javascript:|behavior|binding/i.test(value)) fail(`<${name} style="${value.slice(0, 80)}">`);
      }
    }
  };

  const none = new Set<string>();
  const documentParts = new Set(['html', 'head', 'body']);
  outputs.forEach((output, index) => {
    const div = document.createElement('div');
    div.innerHTML = output;
    check(div, index, 'innerHTML', none);
    const reserialized = div.innerHTML;
    if (reserialized !== output) reserializedDiffers++;
    const again = document.createElement('div');
    again.innerHTML = reserialized;
    check(again, index, 'innerHTML, re-serialized, parsed again', none);

    const doc = new DOMParser().parseFromString(output, 'text/html');
    check(doc.documentElement, index, 'document', documentParts);
    const docAgain = new DOMParser().parseFromString(doc.documentElement.outerHTML, 'text/html');
    check(docAgain.documentElement, index, 'document, re-serialized, parsed again', documentParts);
  });
  return { violations, checked, reserializedDiffers };
}

test("Chromium's parse of every sanitized output, re-serialized and parsed again, passes the allowlist (no mutation XSS)", async ({ page }) => {
  const inputs = [...(await corpusInputs()).map((vector) => vector.html), ...generated];
  const outputs = inputs.map((html) => sanitizeHtml(html, options));
  const policy: Policy = {
    tags: [...EMAIL_ALLOWED_TAGS],
    attributes: [...EMAIL_ALLOWED_ATTRIBUTES],
    aria: ARIA_ATTRIBUTE.source,
    linkAttributes: Object.keys(LINK_ATTRIBUTES),
  };
  await page.setContent('<!DOCTYPE html><html><head><title>re-parse</title></head><body></body></html>');
  const result = await page.evaluate(checkInPage, { outputs, policy });
  printFigure(`re-parse: ${outputs.length} outputs, ${result.checked} parses checked, ${result.reserializedDiffers} re-serialized differently by Chromium, ${result.violations.length} violations`);
  expect(result.checked).toBe(outputs.length * 4);
  expect(result.violations.map((v) => `${v.stage}: ${v.what} — from ${JSON.stringify(inputs[v.index]!.slice(0, 200))}`)).toEqual([]);
});

test('the re-parse check sees what it must refuse', async ({ page }) => {
  // The check above, fed unsanitized markup: it must name each kind of violation.
  const outputs = ['<svg><a></a></svg>', '<p onclick="x">a</p>', '<a href="javascript:x">a</a>', '<img src="/relative.png">', '<!-- c --><p>x</p>', '<form></form>', '<style>a{}</style><noscript><p title="</noscript><img src=x>"></p></noscript>'];
  const policy: Policy = { tags: [...EMAIL_ALLOWED_TAGS], attributes: [...EMAIL_ALLOWED_ATTRIBUTES], aria: ARIA_ATTRIBUTE.source, linkAttributes: Object.keys(LINK_ATTRIBUTES) };
  await page.setContent('<!DOCTYPE html><html><head><title>re-parse</title></head><body></body></html>');
  const { violations } = await page.evaluate(checkInPage, { outputs, policy });
  const flagged = new Set(violations.map((v) => v.index));
  expect([...flagged].sort()).toEqual(outputs.map((_, index) => index));
});
