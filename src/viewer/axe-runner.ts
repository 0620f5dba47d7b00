/**
 * The script of the viewer's accessibility frame (built into `axe-runner.js`
 * when axe-core is installed): runs axe-core, loaded before it in the same
 * frame, over the frame's document (the message's sanitized HTML) with the
 * one configuration `toBeAccessible` runs (src/checks/axe-config.ts: axe's WCAG
 * and best-practice rules without the page-structure ones, plus
 * `inboxkit-layout-table`), and posts the violations to the viewer.
 *
 * The frame is sandboxed with scripts but without the viewer's origin, and its
 * policy runs only the two scripts carrying its nonce: the message cannot run
 * code, and this code cannot reach the viewer's credential or the API.
 *
 * @packageDocumentation
 */

import { AXE_DEFAULT_TAGS, AXE_MAX_NODES, EMAIL_IRRELEVANT_RULES, configureAxeForEmail } from '../checks/axe-config.ts';

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}
interface Axe {
  run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }>;
}

async function audit(axe: Axe): Promise<unknown> {
  configureAxeForEmail();
  const { violations } = await axe.run(document, { runOnly: { type: 'tag', values: AXE_DEFAULT_TAGS }, rules: Object.fromEntries(EMAIL_IRRELEVANT_RULES.map((r) => [r, { enabled: false }])), resultTypes: ['violations'] });
  return violations.map((v) => ({
    id: v.id,
    impact: v.impact ?? 'minor',
    help: v.help,
    helpUrl: v.helpUrl,
    targets: v.nodes.slice(0, AXE_MAX_NODES).map((n) => n.target.map(String).join(' ')),
    summaries: v.nodes.slice(0, AXE_MAX_NODES).map((n) => n.failureSummary ?? ''),
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
