/**
 * The content-rule table of docs/email-checks.md states the rules of
 * `CONTENT_RULES` (src/checks/content-rules.ts) and nothing else: the same
 * ids in the same order, each with its severity, its why and its fix word for
 * word. A rule added to the code and not to the guide (or the other way
 * round), a severity or a sentence changed on one side only, fails here.
 */
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONTENT_RULES } from '../../../src/checks/content-rules.ts';
import type { ContentRule } from '../../../src/checks/content-rules.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const GUIDE = 'docs/email-checks.md';
const HEADER = '| rule | severity | why | fix |';

/** A row of the guide's table, as its text says. */
interface DocumentedRule {
  id: string;
  severity: string;
  why: string;
  fix: string;
}

/** The cells of a Markdown table row: split on pipes that are not escaped, `\|` and the entities `&lt;` `&gt;` `&amp;` read as the characters they stand for. */
function cells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
}

/** The rows of the content-rule table (the one headed `| rule | severity | why | fix |`) in a page. */
function documentedRules(page: string): DocumentedRule[] {
  const lines = page.split('\n');
  const start = lines.findIndex((line) => line.trim() === HEADER);
  if (start < 0) throw new Error(`${GUIDE} has no content-rule table: its header line must read "${HEADER}"`);
  const rows: DocumentedRule[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.trim().startsWith('|')) break;
    const [rule = '', severity = '', why = '', fix = '', ...rest] = cells(line);
    if (rest.length > 0) throw new Error(`${GUIDE}: the row of ${rule} has ${4 + rest.length} cells, the table 4 (an unescaped | in a cell?)`);
    rows.push({ id: rule.replace(/^`(.*)`$/, '$1'), severity, why, fix });
  }
  return rows;
}

/** What differs between the guide's table and the rules: one sentence per difference, naming the rule. */
function differences(page: string, rules: readonly ContentRule[]): string[] {
  const documented = documentedRules(page);
  const byId = new Map(documented.map((row) => [row.id, row]));
  const problems: string[] = [];
  for (const rule of rules) {
    const row = byId.get(rule.id);
    if (!row) {
      problems.push(`${rule.id}: in the code, not in the table; add its row (severity ${rule.severity})`);
      continue;
    }
    if (row.severity !== rule.severity) problems.push(`${rule.id}: the table says ${row.severity}, the code ${rule.severity}`);
    if (row.why !== rule.why) problems.push(`${rule.id}: the why differs; the code says: ${rule.why}`);
    if (row.fix !== rule.fix) problems.push(`${rule.id}: the fix differs; the code says: ${rule.fix}`);
  }
  const known = new Set<string>(rules.map((rule) => rule.id));
  for (const row of documented) if (!known.has(row.id)) problems.push(`${row.id}: in the table, not in the code; remove its row or add the rule`);
  if (problems.length === 0) {
    const order = documented.map((row) => row.id).join(', ');
    const expected = rules.map((rule) => rule.id).join(', ');
    if (order !== expected) problems.push(`the table lists the rules in another order than the code: ${expected}`);
  }
  return problems;
}

test('the content-rule table of docs/email-checks.md states every rule of the code, with its severity, why and fix', () => {
  const page = readFileSync(path.join(root, GUIDE), 'utf8');
  const rules = Object.values(CONTENT_RULES);
  expect(rules.length).toBeGreaterThan(10);
  expect(differences(page, rules), `${GUIDE}'s content-rule table is out of step with CONTENT_RULES in src/checks/content-rules.ts`).toEqual([]);
});

test('a rule missing from the table, one the code lacks, and a changed severity are each named', () => {
  const rules: ContentRule[] = [
    { id: 'script', severity: 'error', why: 'Clients remove <script>.', fix: 'Remove it.' },
    { id: 'form', severity: 'warning', why: 'Forms | rarely submit.', fix: 'Link to a page.' },
    { id: 'img-alt', severity: 'warning', why: 'Images are blocked.', fix: 'Add `alt`.' },
  ] as unknown as ContentRule[];
  const page = [
    '# Guide',
    '',
    HEADER,
    '| --- | --- | --- | --- |',
    '| `script` | error | Clients remove &lt;script&gt;. | Remove it. |',
    '| `form` | error | Forms \\| rarely submit. | Link to a page. |',
    '| `old-rule` | warning | Gone. | Nothing. |',
    '',
    'After the table.',
  ].join('\n');
  expect(differences(page, rules)).toEqual([
    'form: the table says error, the code warning',
    'img-alt: in the code, not in the table; add its row (severity warning)',
    'old-rule: in the table, not in the code; remove its row or add the rule',
  ]);
  expect(() => differences('# No table here', rules)).toThrow(/has no content-rule table/);
});

test('a changed sentence or order is named', () => {
  const rules = [
    { id: 'a', severity: 'error', why: 'Why a.', fix: 'Fix a.' },
    { id: 'b', severity: 'warning', why: 'Why b.', fix: 'Fix b.' },
  ] as unknown as ContentRule[];
  const table = (rows: string[]) => [HEADER, '| --- | --- | --- | --- |', ...rows].join('\n');
  expect(differences(table(['| `a` | error | Why a. | Fix a. |', '| `b` | warning | Why B. | Fix b. |']), rules)).toEqual(['b: the why differs; the code says: Why b.']);
  expect(differences(table(['| `b` | warning | Why b. | Fix b. |', '| `a` | error | Why a. | Fix a. |']), rules)).toEqual(['the table lists the rules in another order than the code: a, b']);
});
