/**
 * The accessibility findings of the Renders tab: axe-core run over the
 * message's sanitized HTML in a frame of its own, the rules
 * `expect(message).toBeAccessible()` runs.
 *
 * The message frame stays as it is (no scripts at all). The audit frame is
 * sandboxed with `allow-scripts` but not `allow-same-origin`, so it has an
 * opaque origin: no access to the viewer's page, storage or credential, and
 * no same-origin API call. Its policy runs only the scripts with its nonce
 * (axe.min.js and axe-runner.js, served by the viewer) and requests nothing
 * else; it posts its findings back, and the viewer shows them as text.
 *
 * @packageDocumentation
 */
import { h, replace } from './dom.ts';
import { ASSET_BASE } from './lazy.ts';

/** One violation as the audit frame reports it. */
export interface ViewerViolation {
  id: string;
  impact: string;
  help: string;
  helpUrl: string;
  targets: string[];
  summaries: string[];
}

/** A violation with the colour schemes it was found in. */
export interface SchemedViolation extends ViewerViolation {
  schemes: string[];
}

/** The findings of both schemes, one row per rule (the light run's elements first, then those only dark mode adds). */
function merge(runs: Array<{ scheme: string; violations: ViewerViolation[] }>): SchemedViolation[] {
  const byId = new Map<string, SchemedViolation>();
  for (const { scheme, violations } of runs) {
    for (const v of violations) {
      const seen = byId.get(v.id);
      if (!seen) {
        byId.set(v.id, { ...v, schemes: [scheme] });
        continue;
      }
      seen.schemes.push(scheme);
      v.targets.forEach((t, i) => {
        if (seen.targets.includes(t)) return;
        seen.targets.push(t);
        seen.summaries.push(v.summaries[i] ?? '');
      });
    }
  }
  return [...byId.values()];
}

const TIMEOUT_MS = 60_000;

function randomNonce(): string {
  return [...crypto.getRandomValues(new Uint8Array(18))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** The audit frame's document: the sanitized HTML, and axe's two scripts, deferred so that nothing in the message can come before them. */
export function auditDocument(html: string, nonce: string, base: string): string {
  const policy = `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src data:; font-src data:`;
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${policy}">`,
    '<meta name="referrer" content="no-referrer">',
    `<script defer nonce="${nonce}" src="${base}axe.min.js"></script>`,
    `<script defer nonce="${nonce}" src="${base}axe-runner.js"></script>`,
    '<style>html{background:#fff;color:#000}body{margin:12px;font:14px/1.45 system-ui,sans-serif}</style>',
    `</head><body>${html}</body></html>`,
  ].join('');
}

/** Whether the build shipped axe-core (it copies it when axe-core is installed). */
async function axeAvailable(): Promise<boolean> {
  const res = await fetch(`${ASSET_BASE}axe-runner.js`, { method: 'HEAD', cache: 'no-store' });
  return res.ok;
}

/** Runs the audit over `html` in a hidden frame under `host`; resolves with the violations. */
export function runAudit(html: string, host: HTMLElement): Promise<ViewerViolation[]> {
  const nonce = randomNonce();
  const frame = h('iframe', { sandbox: 'allow-scripts', 'aria-hidden': 'true', tabindex: '-1', title: 'Accessibility audit (hidden)', class: 'audit-frame' });
  frame.setAttribute('csp', `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src data:; font-src data:`);
  return new Promise<ViewerViolation[]>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener('message', onMessage);
      frame.remove();
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`the audit did not answer within ${TIMEOUT_MS / 1000} s`));
    }, TIMEOUT_MS);
    const onMessage = (event: MessageEvent) => {
      if (event.source !== frame.contentWindow) return;
      const data = event.data as { type?: string; violations?: ViewerViolation[]; error?: string };
      if (data?.type !== 'inboxkit-axe') return;
      done();
      if (typeof data.error === 'string') reject(new Error(data.error));
      else resolve(Array.isArray(data.violations) ? data.violations : []);
    };
    window.addEventListener('message', onMessage);
    frame.srcdoc = auditDocument(html, nonce, `${location.origin}${ASSET_BASE}`);
    host.append(frame);
  });
}

function safeLink(url: string, text: string): Node {
  return /^https:\/\//i.test(url) ? h('a', { href: url, target: '_blank', rel: 'noopener noreferrer' }, text) : document.createTextNode(text);
}

/** The violations as a table (or a sentence when there are none). */
export function violationsTable(violations: SchemedViolation[]): Node {
  if (violations.length === 0) return h('p', { class: 'a11y-clean' }, 'No accessibility violations found (the rules of toBeAccessible, in light and dark mode).');
  return h(
    'table',
    { class: 'grid a11y-violations' },
    h('caption', {}, `${violations.length} accessibility violation${violations.length === 1 ? '' : 's'} (expect(message).toBeAccessible())`),
    h('thead', {}, h('tr', {}, ...['Rule', 'Impact', 'Help', 'Elements', 'Found in'].map((c) => h('th', { scope: 'col' }, c)))),
    h(
      'tbody',
      {},
      ...violations.map((v) =>
        h(
          'tr',
          {},
          h('td', {}, h('code', {}, String(v.id))),
          h('td', {}, String(v.impact)),
          h('td', {}, safeLink(String(v.helpUrl), String(v.help))),
          h('td', {}, h('ul', {}, ...v.targets.map((t, i) => h('li', {}, h('code', {}, String(t)), v.summaries[i] ? h('div', { class: 'muted' }, String(v.summaries[i])) : null)))),
          h('td', {}, v.schemes.join(', ')),
        ),
      ),
    ),
  );
}

/**
 * The accessibility section: a button that runs the audit over the HTML as
 * light mode and as dark mode show it (colour contrast differs), as
 * `toBeAccessible()` does, and the findings.
 */
export function accessibilitySection(light: string, dark: string): Node {
  const out = h('div', { class: 'a11y-results', 'aria-live': 'polite' });
  const button = h('button', { type: 'button' }, 'Check accessibility');
  button.addEventListener('click', () => {
    button.disabled = true;
    replace(out, h('p', { class: 'muted' }, 'Running axe-core…'));
    void (async () => {
      try {
        if (!(await axeAvailable())) {
          replace(out, h('p', { role: 'alert' }, 'Accessibility checks need axe-core when the viewer is built: install it (npm install --save-dev axe-core) and run npm run build.'));
          return;
        }
        const runs = [
          { scheme: 'light', violations: await runAudit(light, out) },
          { scheme: 'dark', violations: await runAudit(dark, out) },
        ];
        replace(out, violationsTable(merge(runs)));
      } catch (error) {
        replace(out, h('p', { role: 'alert' }, `The accessibility check failed: ${(error as Error).message}`));
      } finally {
        button.disabled = false;
      }
    })();
  });
  return h('section', { 'aria-label': 'Accessibility' }, h('h3', {}, 'Accessibility'), h('p', {}, button, ' axe-core over the sanitized HTML in light and dark mode, in a frame of its own that can reach nothing.'), out);
}
