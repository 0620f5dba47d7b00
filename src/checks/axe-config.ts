/**
 * The one axe-core configuration of inboxkit's accessibility audits, run by
 * `toBeAccessible` (which passes {@link configureAxeForEmail} to the page)
 * and by the viewer's accessibility frame (which bundles it): axe's WCAG and
 * best-practice rules without the ones about a page's structure that an email
 * cannot meet, plus one rule of ours, `inboxkit-layout-table`.
 *
 * @packageDocumentation
 */

/** Rules about a page's structure that an email (shown inside a client's page) cannot meet. */
export const EMAIL_IRRELEVANT_RULES: readonly string[] = ['region', 'landmark-one-main', 'page-has-heading-one', 'bypass', 'document-title', 'meta-viewport'];

/** The axe tags an audit runs unless told otherwise. */
export const AXE_DEFAULT_TAGS: readonly string[] = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice', 'inboxkit'];

/** Most offending elements reported per rule. */
export const AXE_MAX_NODES = 20;

/** The id of inboxkit's own rule: a table that holds no data must have `role="presentation"`. */
export const LAYOUT_TABLE_RULE = 'inboxkit-layout-table';

/**
 * Adds inboxkit's rule to the axe-core loaded in the page (`window.axe`).
 * It runs in the page, so it is self-contained: it reads nothing of this
 * module (Playwright sends its source; the viewer calls it in its frame).
 */
export function configureAxeForEmail(): void {
  type Axe = { configure(spec: unknown): void; commons: { table: { isDataTable(node: Element): boolean } } };
  const axe = (window as unknown as { axe: Axe }).axe;
  const isPresentation = (node: Element) => ['presentation', 'none'].includes((node.getAttribute('role') ?? '').trim().toLowerCase());
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
        metadata: {
          description: 'Ensures tables used for layout have role="presentation"',
          help: 'Layout tables must have role="presentation" (or "none")',
          helpUrl: 'https://www.w3.org/WAI/tutorials/tables/',
        },
      },
    ],
  });
}
