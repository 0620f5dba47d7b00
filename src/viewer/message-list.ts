/**
 * The messages pane: an inbox's messages, newest first and live, with search,
 * paging and keyboard moves between them.
 *
 * @packageDocumentation
 */
import type { Inbox, MessageSummary } from '../wire/schemas.ts';
import { ApiFailure } from './api.ts';
import { addressText, formatAddress, h, replace, time } from './dom.ts';
import { renderInboxes } from './inboxes.ts';
import { isSmsSummary, phoneNumberOf } from './sms-view.ts';
import { mailboxHelp } from './mailbox-help.ts';
import { backLink, badCredentialPage, errorPage, unreachablePage } from './pages.ts';
import { hashOf } from './route.ts';
import { announce, layout, plural, setLive } from './shell.ts';
import { PAGE_SIZE, currentState, navigate } from './state.ts';
import type { State } from './state.ts';

function messageLink(s: State, message: MessageSummary): HTMLElement {
  return h(
    'li',
    {},
    h(
      'a',
      {
        href: hashOf({ ...s.route, inbox: message.inboxId, message: message.id }),
        class: 'item message-item',
        'data-message-id': message.id,
        'aria-current': s.route.message === message.id ? 'true' : null,
      },
      h('span', { class: 'line' }, h('span', { class: 'from' }, formatAddress(message.from)), time(message.receivedAt, { short: true })),
      ...(isSmsSummary(message)
        ? [h('strong', { class: 'line subject' }, message.preview.slice(0, 120), h('span', { class: 'badge' }, 'SMS'))]
        : [
            h('strong', { class: 'line subject' }, message.subject || '(no subject)', message.hasAttachments ? h('span', { class: 'badge' }, 'attachment') : null),
            h('span', { class: 'line muted small preview' }, message.preview.slice(0, 120)),
          ]),
    ),
  );
}

/** A place for the IMAP/POP3 help, filled once the service says where they are (a service without them, or an older one, leaves it empty). */
function mailboxHelpSlot(s: State, inbox: Inbox): HTMLElement {
  const slot = h('div', { id: 'mailbox-help-slot' });
  s.api.service().then(
    (listeners) => {
      const details = mailboxHelp(inbox, listeners);
      if (details) slot.append(details);
    },
    () => undefined,
  );
  return slot;
}

/** "3 messages", or "3 SMS" for a phone. */
function countText(count: number, phone: boolean): string {
  return phone ? `${count.toLocaleString('en')} SMS` : plural(count, 'message');
}

export function renderMessageList(): void {
  const s = currentState();
  if (!s) return;
  const list = document.getElementById('message-list');
  const more = document.getElementById('load-more') as HTMLButtonElement | null;
  const count = document.getElementById('message-count');
  if (!list || !more || !count) return;
  const inbox = s.listed ? s.inboxes.get(s.listed) : undefined;
  if (s.messages.length === 0) {
    const empty = phoneNumberOf(inbox) ? 'No SMS yet. New texts appear here as they arrive.' : 'No messages yet. New mail appears here as it arrives.';
    replace(list, h('li', { class: 'muted' }, s.query ? `No message matches “${s.query}”.` : empty));
  } else {
    replace(list, ...s.messages.map((m) => messageLink(s, m)));
  }
  more.hidden = s.nextCursor === null;
  count.textContent = s.query
    ? `${s.messages.length}${s.nextCursor ? '+' : ''} found for “${s.query}”`
    : `${countText(Math.max(inbox?.messageCount ?? 0, s.messages.length), phoneNumberOf(inbox) !== null)}${s.nextCursor ? `, ${s.messages.length} shown` : ''}`;
}

export async function openInbox(s: State, inboxId: string): Promise<boolean> {
  if (s.listed === inboxId) return true;
  s.inboxStream?.close();
  s.inboxStream = null;
  const generation = ++s.generation;
  s.listGeneration++;
  s.listed = inboxId;
  s.query = '';
  s.messages = [];
  s.nextCursor = null;
  let inbox: Inbox;
  let page;
  try {
    const prefetched = s.prefetch?.inboxId === inboxId ? s.prefetch.page : null;
    s.prefetch = null;
    [inbox, page] = await Promise.all([s.inboxes.get(inboxId) ?? s.api.inbox(inboxId), prefetched ?? s.api.messages(inboxId, { limit: PAGE_SIZE })]);
  } catch (error) {
    if (generation !== s.generation) return false;
    s.listed = null;
    if (error instanceof ApiFailure && error.status === 404) {
      errorPage('Inbox not found', `No inbox ${inboxId} can be seen with the credential of this link: it may never have existed, have expired or been deleted, or belong to someone else.`, backLink());
      return false;
    }
    if (error instanceof ApiFailure && error.status === 401) badCredentialPage(error);
    else if (error instanceof ApiFailure) unreachablePage(error);
    return false;
  }
  if (generation !== s.generation) return false;
  s.inboxes.set(inbox.id, inbox);
  s.messages = page.items;
  s.nextCursor = page.nextCursor;

  const { listPane } = layout();
  const search = h('input', { id: 'message-search', type: 'search', autocomplete: 'off', placeholder: 'subject, sender, recipient or text' });
  let debounce: ReturnType<typeof setTimeout> | undefined;
  const runSearch = () => {
    clearTimeout(debounce);
    void searchMessages(s, search.value.trim());
  };
  search.addEventListener('input', () => {
    clearTimeout(debounce);
    debounce = setTimeout(runSearch, 250);
  });
  const form = h('form', { role: 'search', 'aria-label': 'Messages of this inbox' }, h('label', { for: 'message-search', class: 'field' }, 'Search messages'), search);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    runSearch();
  });
  const deleteInbox = h('button', { type: 'button', class: 'danger' }, 'Delete inbox');
  deleteInbox.addEventListener('click', () => {
    if (!confirm(`Delete the inbox ${inbox.address} and all its messages?`)) return;
    s.api.deleteInbox(inbox.id).then(
      () => {
        s.inboxes.delete(inbox.id);
        announce(`Deleted the inbox ${inbox.address}.`);
        navigate({ inbox: null, message: null });
      },
      (error: Error) => announce(`Could not delete the inbox: ${error.message}`),
    );
  });
  const help = mailboxHelpSlot(s, inbox);
  const more = h('button', { type: 'button', id: 'load-more', class: 'more' }, 'Load older messages');
  more.addEventListener('click', () => void loadMore(s));
  const list = h('ul', { id: 'message-list', class: 'items', 'aria-label': 'Messages' });
  list.addEventListener('keydown', (event) => onListKey(event));
  replace(
    listPane,
    h('div', { class: 'pane-head' }, h('h2', { id: 'messages-heading', class: 'address' }, phoneNumberOf(inbox) ?? addressText(inbox.address)), h('div', { class: 'toolbar' }, deleteInbox)),
    inbox.label ? h('p', { class: 'label' }, inbox.label) : null,
    help,
    form,
    h('p', { id: 'message-count', class: 'muted small', role: 'status' }),
    list,
    more,
  );
  document.title = `${inbox.address} · inboxkit`;
  renderMessageList();
  performance.mark('inboxkit-viewer:first-page');

  const lastSeq = page.items.reduce((max, m) => Math.max(max, m.seq), 0);
  s.inboxStream = s.api.inboxEvents(
    inbox.id,
    // Without messages, start from the beginning (nothing is missed between the list and the stream).
    lastSeq,
    (event) => {
      if (generation !== s.generation) return;
      if (event.type === 'message') onLiveMessage(s, event.message);
      else if (event.type === 'inbox.deleted' || event.type === 'inbox.expired') {
        s.inboxes.delete(inbox.id);
        renderInboxes();
        errorPage(`Inbox ${event.type === 'inbox.expired' ? 'expired' : 'deleted'}`, `The inbox ${inbox.address} is gone, with its messages.`, backLink());
      }
    },
    setLive,
  );
  return true;
}

function summaryMatches(message: MessageSummary, query: string): boolean {
  const q = query.toLowerCase();
  const fields = [message.subject, message.preview, formatAddress(message.from), ...message.to.map(formatAddress), ...message.cc.map(formatAddress)];
  return fields.some((f) => f.toLowerCase().includes(q));
}

function onLiveMessage(s: State, message: MessageSummary): void {
  if (s.messages.some((m) => m.seq === message.seq)) return;
  // With a search, a new message is shown when its summary matches (its text beyond the preview is not sent live).
  if (s.query && !summaryMatches(message, s.query)) return;
  s.messages.unshift(message);
  s.messages.sort((a, b) => b.seq - a.seq);
  renderMessageList();
  announce(isSmsSummary(message) ? `New SMS: ${message.preview.slice(0, 120)}` : `New message: ${message.subject || '(no subject)'}`);
}

async function searchMessages(s: State, query: string): Promise<void> {
  if (!s.listed || query === s.query) return;
  const generation = ++s.listGeneration;
  const inboxId = s.listed;
  try {
    const page = await s.api.messages(inboxId, { limit: PAGE_SIZE, q: query });
    if (generation !== s.listGeneration || inboxId !== s.listed) return;
    s.query = query;
    s.messages = page.items;
    s.nextCursor = page.nextCursor;
    renderMessageList();
  } catch (error) {
    announce(`Search failed: ${(error as Error).message}`);
  }
}

async function loadMore(s: State): Promise<void> {
  if (!s.listed || s.nextCursor === null) return;
  const generation = s.listGeneration;
  try {
    const page = await s.api.messages(s.listed, { limit: PAGE_SIZE, cursor: s.nextCursor, q: s.query });
    if (generation !== s.listGeneration) return;
    const known = new Set(s.messages.map((m) => m.seq));
    s.messages.push(...page.items.filter((m) => !known.has(m.seq)));
    s.nextCursor = page.nextCursor;
    renderMessageList();
  } catch (error) {
    announce(`Could not load older messages: ${(error as Error).message}`);
  }
}

// ---- keyboard ----
function moveSelection(step: number): void {
  const state = currentState();
  if (!state || state.messages.length === 0) return;
  const index = state.messages.findIndex((m) => m.id === state.route.message);
  const next = state.messages[Math.min(state.messages.length - 1, Math.max(0, index === -1 ? 0 : index + step))];
  if (!next) return;
  navigate({ message: next.id });
  requestAnimationFrame(() => (document.querySelector(`[data-message-id="${CSS.escape(next.id)}"]`) as HTMLElement | null)?.focus());
}

function onListKey(event: KeyboardEvent): void {
  if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
    event.preventDefault();
    moveSelection(event.key === 'ArrowDown' ? 1 : -1);
  }
}

/** Keys anywhere on the page: j and k move between messages, / searches. */
export function setUpKeyboard(): void {
  document.addEventListener('keydown', (event) => {
    const target = event.target as HTMLElement | null;
    if (target && (target.closest('input, textarea, select, [role="tablist"]') || target.isContentEditable)) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'j') moveSelection(1);
    else if (event.key === 'k') moveSelection(-1);
    else if (event.key === '/') {
      const search = document.getElementById('message-search');
      if (search) {
        event.preventDefault();
        search.focus();
      }
    }
  });
}
