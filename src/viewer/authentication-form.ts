/**
 * The Checks tab's authentication part: the user pastes the test DNS (the map
 * of `use: { inboxkit: { dns } }`) as JSON, and the service verifies DKIM, SPF,
 * DMARC and ARC of the stored message against it
 * (`POST /messages/{id}/authentication`). Every value is shown as text.
 *
 * @packageDocumentation
 */
import type { AuthenticationCheck } from '../wire/authentication-check.ts';
import type { Message } from '../wire/schemas.ts';
import type { Api } from './api.ts';
import { grid, h, replace } from './dom.ts';

const EXAMPLE = '{\n  "mail._domainkey.acme.example": "v=DKIM1; k=rsa; p=MIIBIjANBg…",\n  "acme.example": "v=spf1 ip4:127.0.0.1 -all",\n  "_dmarc.acme.example": "v=DMARC1; p=reject"\n}';

function results(report: AuthenticationCheck): Node[] {
  const { session } = report;
  return [
    grid(
      'DKIM (one row per signature)',
      ['Domain', 'Selector', 'Result', 'Reason'],
      report.dkim.map((d) => [d.domain || '—', d.selector || '—', d.result, d.reason ?? '']),
    ),
    grid('SPF, DMARC, ARC', ['Check', 'Result', 'Domain', 'Reason'], [
      ['SPF', report.spf.result, report.spf.domain ?? '—', report.spf.reason ?? ''],
      ['DMARC', report.dmarc.result + (report.dmarc.policy ? ` (p=${report.dmarc.policy})` : ''), report.dmarc.domain ?? '—', report.dmarc.reason ?? ''],
      ['ARC', report.arc.result, '—', report.arc.reason ?? ''],
    ]),
    h('p', { class: 'muted' }, `Session: MAIL FROM <${session.mailFrom}> from ${session.clientAddress}${session.helo ? ` (HELO ${session.helo})` : ''}. In a test: expect(message).toBeAuthenticated().`),
  ];
}

/** The form: the test DNS as JSON, a "Check authentication" button, and the results. */
export function authenticationForm(message: Message, api: Api): Node {
  const id = `auth-dns-${message.id}`;
  const input = h('textarea', { id, rows: '6', cols: '72', spellcheck: 'false', placeholder: EXAMPLE });
  const out = h('div', { class: 'auth-results', 'aria-live': 'polite' });
  const button = h('button', { type: 'button' }, 'Check authentication');
  button.addEventListener('click', () => {
    let dns: unknown;
    try {
      dns = JSON.parse(input.value.trim() || '{}');
    } catch (error) {
      replace(out, h('p', { class: 'error' }, `The test DNS is not JSON: ${(error as Error).message}. Paste an object of DNS names to records, as in use: { inboxkit: { dns } }.`));
      return;
    }
    button.disabled = true;
    replace(out, h('p', { class: 'muted' }, 'Checking…'));
    api
      .authentication(message.id, { dns: dns as AuthenticationCheckRequestDns })
      .then((report) => replace(out, ...results(report)))
      .catch((error: Error) => replace(out, h('p', { class: 'error' }, error.message)))
      .finally(() => (button.disabled = false));
  });
  return h(
    'div',
    { class: 'auth-check' },
    h('label', { for: id }, 'Test DNS (JSON: DNS names to records; a name not in it does not exist)'),
    input,
    h('p', {}, button),
    out,
  );
}

type AuthenticationCheckRequestDns = Parameters<Api['authentication']>[1]['dns'];
