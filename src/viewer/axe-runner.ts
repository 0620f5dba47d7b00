/**
 * The script of the viewer's accessibility frame (built into `axe-runner.js`
 * when axe-core is installed): runs axe-core, loaded before it in the same
 * frame, over the frame's document (the message's sanitized HTML) with the
 * rules `toBeAccessible` runs (src/playwright/accessibility.ts: axe's WCAG and
 * best-practice rules without the page-structure ones, plus
 * `inboxkit-layout-table`), and posts the violations to the viewer.
 *
 * The frame is sandboxed with scripts but without the viewer's origin, and its
 * policy runs only the two scripts carrying its nonce: the message cannot run
 * code, and this code cannot reach the viewer's credential or the API.
 *
 * @packageDocumentation
 */

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}
interface Axe {
  configure(spec: unknown): void;
  run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }>;
  commons: { table: { isDataTable(node: Element): boolean } };
}

/** Rules about a page's structure that an email cannot meet (as `EMAIL_IRRELEVANT_RULES` in src/playwright/accessibility.ts). */
const OFF = ['region', 'landmark-one-main', 'page-has-heading-one', 'bypass', 'document-title', 'meta-viewport'];
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice', 'inboxkit'];
const MAX_NODES = 20;
const isPresentation = (node: Element) => ['presentation', 'none'].includes((node.getAttribute('role') ?? '').trim().toLowerCase());

async function audit(axe: Axe): Promise<unknown> {
  axe.configure({
    checks: [
      {
        id: 'inboxkit-presentation-role',
        evaluate: isPresentation,
        metadata: { impact: 'moderate', messages: { pass: 'The layout table has role="presentation"', fail: 'This table holds no data but lacks role="presentation": screen readers announce its rows and columns' } },
      },
    ],
    rules: [
      {
        id: 'inboxkit-layout-table',
        selector: 'table',
        matches: (node: Element) => !axe.commons.table.isDataTable(node) || isPresentation(node),
        any: ['inboxkit-presentation-role'],
        tags: ['inboxkit', 'best-practice'],
        impact: 'moderate',
        metadata: { description: 'Ensures tables used for layout have role="presentation"', help: 'Layout tables must have role="presentation" (or "none")', helpUrl: 'https://www.w3.org/WAI/tutorials/tables/' },
      },
    ],
  });
  const { violations } = await axe.run(document, { runOnly: { type: 'tag', values: TAGS }, rules: Object.fromEntries(OFF.map((r) => [r, { enabled: false }])), resultTypes: ['violations'] });
  return violations.map((v) => ({
    id: v.id,
    impact: v.impact ?? 'minor',
    help: v.help,
    helpUrl: v.helpUrl,
    targets: v.nodes.slice(0, MAX_NODES).map((n) => n.target.map(String).join(' ')),
    summaries: v.nodes.slice(0, MAX_NODES).map((n) => n.failureSummary ?? ''),
  }));
}

const axe = (window as unknown as { axe?: Axe }).axe;
const post = (message: unknown) => window.parent.postMessage(message, '*');
if (!axe) post({ type: 'inboxkit-axe', error: 'axe-core did not load in the accessibility frame.' });
else
  audit(axe).then(
    (violations) => post({ type: 'inboxkit-axe', violations }),
    (error: unknown) => post({ type: 'inboxkit-axe', error: String((error as Error)?.message ?? error) }),
  );
