/**
 * The README and the guides in docs/ stay true: every TypeScript example in
 * them is quoted from a file that a test or an example spec runs, every npm
 * script they name exists, and every `inboxkit` flag they mention is one the
 * command accepts. (Links between the pages: tests/unit/docs-links.spec.ts;
 * the API reference: tests/unit/api-reference.spec.ts.)
 */
import { test, expect } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { asPublished } from '../support/published.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
/** The README and every guide of docs/ (the generated API reference in docs/api aside), by path. */
const pages = new Map<string, string>([
  ['README.md', readme],
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name): [string, string] => [`docs/${name}`, readFileSync(path.join(root, 'docs', name), 'utf8')]),
]);
const localService = pages.get('docs/local-service.md') ?? '';

interface Fence { lang: string; body: string; source: string | null; line: number }

function fences(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const found: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!open || open[1] === '') continue;
    let end = i + 1;
    while (end < lines.length && lines[end] !== '```') end++;
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const source = /^<!-- snippet: (\S+) -->$/.exec(lines[before] ?? '')?.[1] ?? null;
    found.push({ lang: open[1]!, body: lines.slice(i + 1, end).join('\n'), source, line: i + 1 });
    i = end;
  }
  return found;
}

function region(text: string, name: string): string {
  const match = new RegExp(`^([ \\t]*)// #region ${name}\\n([\\s\\S]*?)^[ \\t]*// #endregion`, 'm').exec(text);
  if (!match) throw new Error(`no "// #region ${name}" … "// #endregion" in the file`);
  const indent = match[1]!.length;
  return match[2]!.split('\n').map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length))).join('\n');
}

/** The text a README example quotes: a `#region` of a file, or the whole file. */
function quoted(source: string): string {
  const [file, name] = source.split('#') as [string, string | undefined];
  const text = asPublished(readFileSync(path.join(root, file), 'utf8'));
  return (name ? region(text, name) : text).trimEnd();
}

/** Every fenced block of every page, with the page it is on. */
const all = [...pages].flatMap(([page, text]) => fences(text).map((fence) => ({ ...fence, page })));

test('the README and the guides have TypeScript examples, each quoted from a file that runs', () => {
  const typescript = all.filter((fence) => fence.lang === 'ts');
  expect(typescript.filter((fence) => fence.page === 'README.md').length).toBeGreaterThanOrEqual(2);
  expect(typescript.length).toBeGreaterThan(5);
  for (const fence of typescript) {
    const where = `${fence.page} line ${fence.line}`;
    expect(fence.source, `${where}: precede the example with <!-- snippet: path[#region] --> naming the tested file it comes from`).not.toBeNull();
    const source = quoted(fence.source!);
    // A region is quoted whole; a file may be quoted in part (its first test, say).
    if (fence.source!.includes('#')) expect(fence.body.trimEnd(), `${where} differs from ${fence.source}`).toBe(source);
    else expect(source, `${where} is not a part of ${fence.source}`).toContain(fence.body.trimEnd());
  }
});

test('every npm command in the README and the guides names a script that exists', () => {
  const scripts = Object.keys(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts as Record<string, string>);
  const commands = all.filter((fence) => fence.lang === 'bash').flatMap((fence) => fence.body.split('\n'));
  const named = commands.flatMap((line) => [...line.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!));
  expect(named.length).toBeGreaterThan(0);
  for (const script of named) expect(scripts, `npm run ${script}`).toContain(script);
  expect(commands.some((line) => /^npm test\b/.test(line))).toBe(true);
});

test('every inboxkit command and flag the README and the guides mention is accepted by the CLI', () => {
  const help = (sub: string) =>
    execFileSync(process.execPath, [path.join(root, 'src/cli/main.ts'), ...sub.split(' '), '--help'], { encoding: 'utf8' });
  const serveHelp = help('serve');
  const commands = all
    .filter((fence) => fence.lang === 'bash')
    .flatMap((fence) => fence.body.replace(/\\\n\s*/g, ' ').split('\n'))
    .filter((line) => line.startsWith('npx inboxkit '));
  expect(commands.length).toBeGreaterThan(0);
  for (const line of commands) {
    const words = line.replace(/#.*$/, '').trim().split(/\s+/);
    const sub = words.slice(2).filter((word) => !word.startsWith('-')).slice(0, words[2] === 'keys' ? 2 : 1).join(' ');
    const text = help(sub);
    for (const flag of words.filter((word) => word.startsWith('--'))) expect(text, `${line}: ${flag}`).toContain(flag);
  }
  // Prose flags of the local service's guide belong to serve, or to the keys commands it also shows.
  const known = `${serveHelp}\n${help('keys')}`;
  const section = localService;
  expect(section.length).toBeGreaterThan(0);
  for (const flag of new Set(section.match(/--[a-z][a-z-]+/g) ?? [])) expect(known, `docs/local-service.md mentions ${flag}`).toContain(flag);
});

test('the README starts with the path into your own project: the Node.js range of engines, the install command, then the config and spec the consumer test runs', () => {
  const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
  expect(headings[0]).toBe('In your project');
  expect(headings).toContain('Working on inboxkit');
  const start = readme.indexOf('## In your project');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string }; license: string };
  expect(section).toContain(`\`${pkg.engines.node}\``);
  const bash = fences(section).filter((fence) => fence.lang === 'bash').flatMap((fence) => fence.body.split('\n'));
  // The consumer test (tests/integration/consumer) installs exactly these two into fresh projects, then runs `playwright test`.
  expect(bash).toEqual(['npm i -D inboxkit @playwright/test', 'npx playwright test']);
  const examples = fences(section).filter((fence) => fence.lang === 'ts').map((fence) => fence.source);
  expect(examples).toEqual(['tests/consumer-project/playwright.config.ts', 'tests/consumer-project/signup.spec.ts']);
  const consumerTest = readFileSync(path.join(root, 'tests/integration/consumer/consumer.spec.ts'), 'utf8');
  for (const file of ['playwright.config.ts', 'signup.spec.ts']) expect(consumerTest).toContain(`path.join(SOURCES, '${file}')`);
});

test('the licence the package declares is the LICENSE file the README names', () => {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { license: string };
  expect(pkg.license).toBe('MIT');
  const license = readFileSync(path.join(root, 'LICENSE'), 'utf8');
  expect(license.split('\n')[0]).toBe('MIT License');
  expect(license).toMatch(/^Copyright \(c\) \d{4} inboxkit contributors$/m);
  expect(readme).toContain('[LICENSE](LICENSE)');
});
