/**
 * How to read an inbox with an IMAP or POP3 client, in the viewer: the
 * service's listeners (`GET /service`), the account (the inbox's address)
 * and what its password is. Shown only when the service runs IMAP or POP3.
 *
 * @packageDocumentation
 */
import type { Inbox } from '../wire/schemas.ts';
import type { ServiceListeners } from '../wire/service.ts';
import { h } from './dom.ts';

/** The host a client reaches a listener at: the page's own host when it is bound to every interface. */
function reachableHost(host: string): string {
  return host === '0.0.0.0' || host === '::' || host === '' ? location.hostname : host;
}

/** The connection help of an inbox, or null when the service has neither IMAP nor POP3. */
export function mailboxHelp(inbox: Inbox, listeners: ServiceListeners): HTMLElement | null {
  const rows = (
    [
      ['IMAP', listeners.imap],
      ['POP3', listeners.pop3],
    ] as const
  ).flatMap(([name, at]) => (at ? [h('li', {}, `${name}: `, h('code', {}, `${reachableHost(at.host)}:${at.port}`), ' (plain; STARTTLS where the service has TLS)')] : []));
  if (rows.length === 0) return null;
  return h(
    'details',
    { id: 'mailbox-help', class: 'small' },
    h('summary', {}, 'Read this inbox with an IMAP or POP3 client'),
    h('ul', {}, ...rows, h('li', {}, 'user: ', h('code', {}, inbox.address)), h('li', {}, "password: this inbox's token, or its owner's API key (see docs/imap-pop3.md)")),
  );
}
