/**
 * The pages link to each other without a dead end: every relative link of the
 * README, the guides in docs/ and the generated API reference in docs/api
 * names a file of the repository, and every `#anchor` a heading of that page
 * (as GitHub makes anchors from headings).
 */
import { test, expect } from '@playwright/test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return markdownFiles(full);
    return name.endsWith('.md') ? [full] : [];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6} (.+?)\s*#*$/.exec(line)?.[1];
    if (!heading) continue;
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  // Explicit anchors (<a id="…"> / <a name="…">) count too.
  for (const match of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) found.add(match[1]!);
  return found;
}

/** Relative link targets of a page (inline links and images), outside code. */
function links(markdown: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) return;
    const prose = line.replace(/`[^`]*`/g, '');
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, …
      found.push({ target, line: index + 1 });
    }
  });
  return found;
}

/** The broken links of one page (`text`, at `file`), as "page:line → target (why)". */
function brokenLinksOf(file: string, text: string, anchorsOf: (file: string) => Set<string>): string[] {
  const broken: string[] = [];
  for (const { target, line } of links(text)) {
    const [pathPart, anchor] = target.split('#') as [string, string | undefined];
    const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
    const where = `${path.relative(root, file)}:${line} → ${target}`;
    if (!resolved.startsWith(root + path.sep)) broken.push(`${where} (outside the repository)`);
    else if (pathPart !== '' && !existsSync(resolved)) broken.push(`${where} (no such file)`);
    else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor.toLowerCase())) broken.push(`${where} (no such heading)`);
  }
  return broken;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  if (!anchorCache.has(file)) anchorCache.set(file, anchors(readFileSync(file, 'utf8')));
  return anchorCache.get(file)!;
}

const pages = [path.join(root, 'README.md'), ...markdownFiles(path.join(root, 'docs'))];

test('every link between the README, the guides and the API reference leads to a file and heading that exist', () => {
  expect(pages.length).toBeGreaterThan(10);
  expect(pages.flatMap((file) => brokenLinksOf(file, readFileSync(file, 'utf8'), anchorsOf))).toEqual([]);
});

test('the README links to every guide in docs/', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const guides = readdirSync(path.join(root, 'docs')).filter((name) => name.endsWith('.md'));
  expect(guides.filter((guide) => !readme.includes(`](docs/${guide})`))).toEqual([]);
});

test('the link check finds a missing page, a missing heading and a link out of the repository', () => {
  const page = path.join(root, 'docs', 'example.md');
  const text = ['# Example', '[a](nowhere.md) [b](#no-such-heading) [c](../../outside.md)', '[ok](#example) [ok](architecture.md#architecture) [bad](architecture.md#nope)', '[web](https://example.com) `[code](x.md)`'].join('\n');
  const own = (file: string) => (file === page ? anchors(text) : anchorsOf(file));
  expect(brokenLinksOf(page, text, own)).toEqual([
    'docs/example.md:2 → nowhere.md (no such file)',
    'docs/example.md:2 → #no-such-heading (no such heading)',
    'docs/example.md:2 → ../../outside.md (outside the repository)',
    'docs/example.md:3 → architecture.md#nope (no such heading)',
  ]);
});

test("anchors are GitHub's: lower case, punctuation dropped, repeats numbered", () => {
  expect([...anchors('# The client: `inboxkit`\n## Fixtures\n## Fixtures\n```\n# not a heading\n```')]).toEqual(['the-client-inboxkit', 'fixtures', 'fixtures-1']);
});
