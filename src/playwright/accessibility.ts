/**
 * Accessibility audits of a rendered email with axe-core (an optional peer
 * dependency, loaded on first use): axe's own rules, minus the ones about page
 * structure that an email cannot meet (landmarks, a skip link, a page title),
 * plus one of ours, `inboxkit-layout-table`: a table that holds no data must
 * have `role="presentation"`.
 *
 * @packageDocumentation
 */
import type { Page } from '@playwright/test';
import { InboxkitError } from '../client/index.ts';
import { AXE_DEFAULT_TAGS, AXE_MAX_NODES, EMAIL_IRRELEVANT_RULES, configureAxeForEmail } from '../checks/axe-config.ts';

export { EMAIL_IRRELEVANT_RULES };

/** axe's impact levels, least to most severe. */
export type AxeImpact = 'minor' | 'moderate' | 'serious' | 'critical';

/** Options of `toBeAccessible` and of the page audit behind it. */
export interface AccessibilityOptions {
  /** Run only these rule ids (axe's, e.g. `'image-alt'`, `'color-contrast'`, or `'inboxkit-layout-table'`). */
  rules?: readonly string[];
  /** Rule ids to leave out. */
  disableRules?: readonly string[];
  /**
   * axe tags to run (e.g. `['wcag2a', 'wcag2aa']`); ignored when `rules` is given.
   * @defaultValue `['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice', 'inboxkit']`
   */
  tags?: readonly string[];
  /**
   * The least severe impact that fails the assertion.
   * @defaultValue 'minor' (every violation fails)
   */
  impact?: AxeImpact;
  /**
   * The colour schemes to audit in (colour contrast differs in dark mode).
   * @defaultValue `['light', 'dark']`
   */
  colorSchemes?: ReadonlyArray<'light' | 'dark'>;
}

/** One rule an email breaks, with where. */
export interface AccessibilityViolation {
  /** axe's rule id, e.g. `image-alt`. */
  id: string;
  /** axe's impact of the rule's worst finding. */
  impact: AxeImpact;
  /** One line on what the rule wants. */
  help: string;
  /** Deque's page on the rule (ours for `inboxkit-layout-table`). */
  helpUrl: string;
  /** The colour schemes it was found in. */
  colorSchemes: Array<'light' | 'dark'>;
  /** The offending elements: CSS selector, HTML, and axe's summary of what to fix. */
  nodes: Array<{ target: string; html: string; summary: string }>;
}

const IMPACTS: AxeImpact[] = ['minor', 'moderate', 'serious', 'critical'];

/** axe-core's source, imported on first use; a clear error when it is not installed. */
async function axeSource(): Promise<string> {
  try {
    const axe = (await import('axe-core')) as unknown as { source?: string; default?: { source?: string } };
    const source = axe.source ?? axe.default?.source;
    if (typeof source !== 'string') throw new Error('axe-core has no `source`');
    return source;
  } catch (error) {
    throw new InboxkitError('toBeAccessible needs axe-core, an optional peer dependency of inboxkit: install it with `npm install --save-dev axe-core`.', { cause: error });
  }
}

/** Checks the options; a clear error for an unknown impact or colour scheme. */
export function checkAccessibilityOptions(options: AccessibilityOptions): void {
  if (options.impact !== undefined && !IMPACTS.includes(options.impact)) {
    throw new InboxkitError(`toBeAccessible: impact must be one of ${IMPACTS.join(', ')}, got ${JSON.stringify(options.impact)}.`);
  }
  for (const scheme of options.colorSchemes ?? []) {
    if (scheme !== 'light' && scheme !== 'dark') throw new InboxkitError(`toBeAccessible: colorSchemes holds 'light' and 'dark' only, got ${JSON.stringify(scheme)}.`);
  }
  if (options.colorSchemes !== undefined && options.colorSchemes.length === 0) throw new InboxkitError('toBeAccessible: colorSchemes is empty; name at least one of light, dark.');
}

interface RawViolation {
  id: string;
  impact: AxeImpact | null;
  help: string;
  helpUrl: string;
  nodes: Array<{ target: unknown[]; html: string; failureSummary?: string }>;
}

/**
 * Runs axe-core in `page` (an email rendered by `renderEmail`) and returns the
 * violations at or above `options.impact`.
 *
 * @throws InboxkitError when axe-core is not installed, or a rule named in `rules` does not exist.
 */
export async function auditPage(page: Page, options: AccessibilityOptions = {}): Promise<Omit<AccessibilityViolation, 'colorSchemes'>[]> {
  await page.addScriptTag({ content: await axeSource() });
  await page.evaluate(configureAxeForEmail);
  const run = {
    rules: options.rules ? [...options.rules] : null,
    disabled: [...EMAIL_IRRELEVANT_RULES.filter((r) => !options.rules?.includes(r)), ...(options.disableRules ?? [])],
    tags: [...(options.tags ?? AXE_DEFAULT_TAGS)],
  };
  const result = await page.evaluate(async ({ rules, disabled, tags }) => {
    type Axe = {
      getRules(): Array<{ ruleId: string }>;
      run(context: unknown, options: unknown): Promise<{ violations: RawViolation[] }>;
    };
    const axe = (window as unknown as { axe: Axe }).axe;
    const known = new Set(axe.getRules().map((r) => r.ruleId));
    const unknown = (rules ?? []).filter((r) => !known.has(r));
    if (unknown.length > 0) return { unknown, violations: [] as RawViolation[] };
    const rulesOff = Object.fromEntries(disabled.filter((r) => known.has(r)).map((r) => [r, { enabled: false }]));
    const runOnly = rules ? { type: 'rule', values: rules } : { type: 'tag', values: tags };
    const { violations } = await axe.run(document, { runOnly, rules: rulesOff, resultTypes: ['violations'] });
    return { unknown, violations: violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })) })) };
  }, run);
  if (result.unknown.length > 0) throw new InboxkitError(`toBeAccessible: axe-core has no rule ${result.unknown.map((r) => JSON.stringify(r)).join(', ')}; see https://github.com/dequelabs/axe-core/blob/develop/doc/rule-descriptions.md for the rule ids, or use 'inboxkit-layout-table'.`);
  const floor = IMPACTS.indexOf(options.impact ?? 'minor');
  return result.violations
    .map((v) => ({ ...v, impact: v.impact ?? 'minor' }))
    .filter((v) => IMPACTS.indexOf(v.impact) >= floor)
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      helpUrl: v.helpUrl,
      nodes: v.nodes.slice(0, AXE_MAX_NODES).map((n) => ({ target: n.target.map(String).join(' '), html: n.html.length > 200 ? `${n.html.slice(0, 199)}…` : n.html, summary: (n.failureSummary ?? '').replace(/\s+/g, ' ').trim() })),
    }));
}

/** Merges the violations found per colour scheme: one entry per rule, with the schemes it was found in and the nodes of all. */
export function mergeViolations(perScheme: Array<{ scheme: 'light' | 'dark'; violations: Omit<AccessibilityViolation, 'colorSchemes'>[] }>): AccessibilityViolation[] {
  const byId = new Map<string, AccessibilityViolation>();
  for (const { scheme, violations } of perScheme) {
    for (const v of violations) {
      const entry = byId.get(v.id) ?? { ...v, colorSchemes: [], nodes: [] };
      entry.colorSchemes.push(scheme);
      for (const node of v.nodes) if (!entry.nodes.some((n) => n.target === node.target)) entry.nodes.push(node);
      byId.set(v.id, entry);
    }
  }
  return [...byId.values()].sort((a, b) => IMPACTS.indexOf(b.impact) - IMPACTS.indexOf(a.impact) || a.id.localeCompare(b.id));
}

/** A violation as report lines: rule, impact, schemes, help URL, then each element. */
export function describeViolation(v: AccessibilityViolation): string {
  const nodes = v.nodes.map((n) => `      ${n.target}  ${n.html}${n.summary ? `\n        ${n.summary}` : ''}`).join('\n');
  return `  ${v.id} (${v.impact}, ${v.colorSchemes.join(' and ')}): ${v.help}\n    ${v.helpUrl}\n${nodes}`;
}
