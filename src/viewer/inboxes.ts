/**
 * The inboxes pane: the list, its filter, and the caller-wide events that keep
 * it current.
 *
 * @packageDocumentation
 */
import type { Inbox } from '../wire/schemas.ts';
import type { Api } from './api.ts';
import { addressText, fromNow, h, replace, time } from './dom.ts';
import { backLink, errorPage } from './pages.ts';
import { hashOf } from './route.ts';
import { layout, plural } from './shell.ts';
import { phoneNumberOf } from './sms-view.ts';
import { currentState } from './state.ts';
import type { State } from './state.ts';

function sortedInboxes(s: State): Inbox[] {
  return [...s.inboxes.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

export function renderInboxes(): void {
  const s = currentState();
  if (!s) return;
  const { inboxPane } = layout();
  let filter = document.getElementById('inbox-filter') as HTMLInputElement | null;
  let list = document.getElementById('inbox-list');
  if (!filter || !list) {
    filter = h('input', { id: 'inbox-filter', type: 'search', autocomplete: 'off', placeholder: 'address or label' });
    filter.addEventListener('input', () => {
      s.inboxFilter = filter!.value.trim().toLowerCase();
      renderInboxes();
    });
    list = h('ul', { id: 'inbox-list', class: 'items', 'aria-label': 'Inboxes' });
    replace(inboxPane, h('h2', { id: 'inboxes-heading' }, 'Inboxes'), h('label', { for: 'inbox-filter', class: 'field' }, 'Filter inboxes'), filter, list);
  }
  const shown = sortedInboxes(s).filter(
    (inbox) => !s.inboxFilter || inbox.address.toLowerCase().includes(s.inboxFilter) || (inbox.label ?? '').toLowerCase().includes(s.inboxFilter),
  );
  if (shown.length === 0) {
    replace(list, h('li', { class: 'muted' }, s.inboxes.size === 0 ? 'No inboxes yet. They appear here as they are created.' : 'No inbox matches the filter.'));
    return;
  }
  replace(
    list,
    ...shown.map((inbox) =>
      h(
        'li',
        {},
        h(
          'a',
          {
            href: hashOf({ ...s.route, inbox: inbox.id, message: null }),
            'aria-current': s.route.inbox === inbox.id ? 'page' : null,
            class: 'item',
          },
          h(
            'span',
            { class: 'line' },
            h('strong', { class: 'address' }, phoneNumberOf(inbox) ?? addressText(inbox.address), phoneNumberOf(inbox) ? h('span', { class: 'badge' }, 'phone') : null),
            h('span', { class: 'count' }, phoneNumberOf(inbox) ? `${inbox.messageCount.toLocaleString('en')} SMS` : plural(inbox.messageCount, 'message')),
          ),
          inbox.label ? h('span', { class: 'line label' }, inbox.label) : null,
          h('span', { class: 'line muted small' }, 'created ', time(inbox.createdAt, { short: true }), inbox.expiresAt ? ` · expires ${fromNow(inbox.expiresAt)}` : ' · never expires'),
        ),
      ),
    ),
  );
}

export async function loadInboxes(s: State): Promise<void> {
  let cursor: string | null = null;
  do {
    const page = await s.api.inboxes(cursor);
    for (const inbox of page.items) s.inboxes.set(inbox.id, inbox);
    cursor = page.nextCursor;
  } while (cursor !== null && s.inboxes.size < 1000);
}

export function onUserEvent(s: State, event: Parameters<Parameters<Api['userEvents']>[0]>[0]): void {
  if (event.type === 'inbox.created') {
    s.inboxes.set(event.inbox.id, event.inbox);
  } else if (event.type === 'message') {
    const inbox = s.inboxes.get(event.inboxId);
    if (inbox) inbox.messageCount += 1;
  } else {
    s.inboxes.delete(event.inboxId);
    if (s.route.inbox === event.inboxId) {
      errorPage(`Inbox ${event.type === 'inbox.expired' ? 'expired' : 'deleted'}`, `The inbox ${event.inboxId} is gone, with its messages.`, backLink());
      return;
    }
  }
  renderInboxes();
}
