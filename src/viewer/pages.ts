/**
 * The pages that are not the viewer: no credential, a refused credential, an
 * unreachable service, and the other error notices.
 *
 * @packageDocumentation
 */
import type { ApiFailure } from './api.ts';
import { h, replace } from './dom.ts';
import { hashOf, readRoute } from './route.ts';
import { app, liveStatus } from './shell.ts';
import { closeStreams, currentState } from './state.ts';

export function errorPage(title: string, ...lines: Array<string | Node>): void {
  closeStreams();
  document.title = `${title} · inboxkit`;
  replace(app, h('main', { class: 'notice', 'aria-labelledby': 'notice-heading' }, h('h2', { id: 'notice-heading' }, title), ...lines.map((line) => h('p', {}, line))));
  liveStatus.textContent = '';
}

function credentialForm(): HTMLFormElement {
  const input = h('input', { id: 'credential-input', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true });
  const form = h(
    'form',
    { class: 'credential-form' },
    h('label', { for: 'credential-input' }, 'Inbox token, API key or operator token'),
    input,
    h('button', { type: 'submit' }, 'Open'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = input.value.trim();
    if (!value) return;
    const param = value.startsWith('tmi_') ? 'token' : 'key';
    // Keep the inbox and message the link pointed at.
    const { inbox, message } = readRoute();
    location.hash = hashOf({ credential: { kind: param === 'token' ? 'inboxToken' : 'bearer', value }, credentialParam: param, inbox, message });
  });
  return form;
}

export function noCredentialPage(): void {
  errorPage(
    'This viewer needs a credential',
    'Open the viewer link that inboxkit serve printed (it ends in #key=tmo_…) once in this browser: from then on, links like this one (from a test report) open until the service restarts. Or paste an inbox token or API key below. A credential stays in the page’s address after the #, which the browser never sends to the server.',
    credentialForm(),
  );
}

export function badCredentialPage(failure: ApiFailure): void {
  errorPage(
    'The credential in this link is not valid',
    `The inbox service refused it: ${failure.message}`,
    'An inbox token stops working when its inbox is deleted or expires; the operator token changes every time inboxkit serve starts. Open a fresh link, or paste another credential.',
    credentialForm(),
  );
}

export function unreachablePage(failure: ApiFailure): void {
  errorPage('The inbox service cannot be reached', failure.message);
}

export function backLink(): HTMLAnchorElement {
  return h('a', { href: currentState() ? hashOf({ ...currentState()!.route, inbox: null, message: null }) : '#' }, 'Back to the inboxes');
}
