/**
 * The Checks tab of a message, run on demand: the content rules (the same code
 * `message.contentChecks()` runs, on the original parts read from the raw
 * source), the spam check of the service's scanner, the SMTP envelope, and the
 * links over plain http, and client compatibility (the code
 * `message.compatibility()` runs, over the original HTML part, with the
 * caniemail data loaded on first use). Sender authentication runs in the
 * service against a test DNS the user pastes (`authentication-form.ts`).
 *
 * @packageDocumentation
 */
import { extractLinks } from '../extract/index.ts';
import { checkContent } from '../checks/content-checks.ts';
import type { ContentFinding, ContentSource } from '../checks/content-checks.ts';
import { CONTENT_RULES } from '../checks/content-rules.ts';
import { contentPartsOf, parseOriginal } from '../checks/original.ts';
import type { Message } from '../wire/schemas.ts';
import type { SpamCheck } from '../wire/spam-check.ts';
import type { Api } from './api.ts';
import { grid, h, replace } from './dom.ts';
import { loadEmailClients } from './lazy.ts';
import { authenticationForm } from './authentication-form.ts';
import type { CompatibilityReport } from './email-clients.ts';

async function partsOf(api: Api, message: Message): Promise<ContentSource> {
  return contentPartsOf(await parseOriginal(await api.raw(message.id)));
}

function contentSection(findings: ContentFinding[]): Node {
  if (findings.length === 0) return h('p', {}, `No findings: all ${Object.keys(CONTENT_RULES).length} content rules pass.`);
  return grid(
    'Content rules (message.contentChecks(), toPassContentChecks)',
    [{ name: 'Rule', wrap: 'id' }, 'Severity', { name: 'Where', wrap: 'text' }, { name: 'Finding and fix', wrap: 'text' }, { name: 'Why', wrap: 'text' }],
    findings.map((f) => [h('code', {}, f.rule), f.severity, f.where, f.message, CONTENT_RULES[f.rule]?.why ?? '']),
  );
}

function spamSection(result: SpamCheck): Node {
  return h(
    'div',
    {},
    h('p', {}, `${result.scanner}: score ${result.score} of ${result.threshold} — ${result.spam ? 'spam' : 'not spam'} (the scanner's own total ${result.scannerScore}; local-only rules are not counted).`),
    grid(
      'Spam rules (message.spamCheck(), toPassSpamCheck)',
      ['Points', { name: 'Rule', wrap: 'id' }, 'Counted', { name: 'Description', wrap: 'text' }],
      result.rules.map((r) => [r.score.toFixed(1), h('code', {}, r.name), r.localOnly ? 'no (local-only)' : 'yes', r.description]),
    ),
  );
}

/** The clients the Checks tab checks: the families most test plans name. */
const CHECKED_CLIENTS = ['gmail.desktop-webmail', 'gmail.android', 'outlook.windows', 'outlook.macos', 'outlook.outlook-com', 'apple-mail.macos', 'apple-mail.ios', 'yahoo.desktop-webmail'];

function featureList(uses: CompatibilityReport['clients'][number]['unsupported']): Node {
  if (uses.length === 0) return document.createTextNode('—');
  return h('ul', {}, ...uses.map((u) => h('li', {}, h('a', { href: u.url, target: '_blank', rel: 'noopener noreferrer' }, u.feature), u.occurrences > 1 ? ` ×${u.occurrences}` : '')));
}

function compatibilitySection(report: CompatibilityReport): Node {
  if (report.source === 'none') return h('p', { class: 'muted' }, 'No HTML part: nothing to check.');
  return h(
    'div',
    {},
    h('p', {}, report.compatible ? 'Every client checked supports the features this email uses (partial support aside).' : 'Some clients lack features this email uses.', ` caniemail data of ${report.dataUpdated}.`),
    grid(
      'Client compatibility (message.compatibility(), toBeCompatibleWith)',
      ['Client', 'Supported', 'Unsupported features', 'Partly supported'],
      report.clients.map((c) => [c.name, `${c.score.supported}%`, featureList(c.unsupported), featureList(c.partial)]),
    ),
  );
}

async function runChecks(api: Api, message: Message, out: HTMLElement): Promise<void> {
  replace(out, h('p', { class: 'muted' }, 'Running…'));
  const sections: Node[] = [];
  sections.push(h('h3', {}, 'Content'));
  let parts: ContentSource | null = null;
  try {
    parts = await partsOf(api, message);
    sections.push(contentSection(checkContent(parts)));
  } catch (error) {
    sections.push(h('p', { class: 'error' }, `Content checks failed: ${(error as Error).message}`));
  }
  sections.push(h('h3', {}, 'Spam'));
  try {
    sections.push(spamSection(await api.spamCheck(message.id)));
  } catch (error) {
    sections.push(h('p', { class: 'muted' }, (error as Error).message));
  }
  sections.push(h('h3', {}, 'Links'));
  const links = extractLinks({ html: message.html, text: message.text, subject: message.subject });
  sections.push(
    links.length === 0
      ? h('p', { class: 'muted' }, 'No links.')
      : grid('Links (toHaveWorkingLinks requests them from a test)', ['Text', 'Target', 'Note'], links.map((l) => [l.text || '(no text)', h('code', {}, l.href), /^http:/i.test(l.href) ? 'plain http' : ''])),
  );
  sections.push(h('h3', {}, 'Client compatibility'));
  try {
    const { compatibility } = await loadEmailClients();
    sections.push(compatibilitySection(compatibility(parts ? parts.html : message.html, CHECKED_CLIENTS)));
  } catch (error) {
    sections.push(h('p', { class: 'error' }, `The compatibility check failed: ${(error as Error).message}`));
  }
  sections.push(h('h3', {}, 'Authentication'));
  const envelope = message.envelope;
  sections.push(
    h(
      'p',
      {},
      envelope
        ? `Envelope: MAIL FROM <${envelope.mailFrom}>, RCPT TO ${envelope.rcptTo.join(', ')}, from ${envelope.clientAddress ?? '?'}${envelope.helo ? ` (HELO ${envelope.helo})` : ''}. `
        : 'No envelope recorded. ',
      'Check DKIM, SPF, DMARC and ARC against your test DNS below.',
    ),
  );
  replace(out, ...sections);
}

/** The Checks tab: a button that runs the checks, and their results. */
export function checksPanel(message: Message, api: Api): Node {
  const out = h('div', { class: 'checks-results', 'aria-live': 'polite' });
  const button = h('button', { type: 'button' }, 'Run checks');
  button.addEventListener('click', () => {
    button.disabled = true;
    void runChecks(api, message, out).finally(() => (button.disabled = false));
  });
  return h(
    'div',
    { class: 'checks' },
    h('p', {}, button, ' Content rules, spam score, links, client compatibility — on demand.'),
    out,
    h('h3', {}, 'Sender authentication'),
    authenticationForm(message, api),
  );
}
