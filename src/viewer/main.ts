/**
 * The inbox viewer: a single page served by `inboxkit serve` at `/`, a pure
 * client of the public API. The credential comes from the URL fragment
 * (`#token=<inbox token>` or `#key=<API key, session or operator token>`),
 * which browsers never send to a server, and goes to the API in a header.
 *
 * The view is in the fragment too: `&inbox=<id>&message=<id>`, so links deep-link
 * and the back button works.
 *
 * @packageDocumentation
 */
import type { Inbox, MessageSummary } from '../wire/schemas.ts';
import { Api, ApiFailure } from './api.ts';
import type { Credential, LiveStream, Page } from './api.ts';
import { formatAddress, fromNow, h, replace, time } from './dom.ts';
import { renderMessage } from './message-view.ts';

const API_BASE = '/api/v1';
const PAGE_SIZE = 50;

/** What the fragment says. */
interface Route {
  credential: Credential | null;
  /** `token` or `key`: which fragment parameter carried the credential. */
  credentialParam: 'token' | 'key' | null;
  inbox: string | null;
  message: string | null;
}

/**
 * Where the browser remembers an operator token that worked, so that links
 * without a credential (the ones in test reports) open. Only operator tokens:
 * they die with the service that printed them.
 */
const REMEMBERED_OPERATOR = 'inboxkit-viewer-operator-token';

function remembered(): string | null {
  try {
    return localStorage.getItem(REMEMBERED_OPERATOR);
  } catch {
    return null;
  }
}

function remember(value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(REMEMBERED_OPERATOR);
    else localStorage.setItem(REMEMBERED_OPERATOR, value);
  } catch {}
}

function readRoute(): Route {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const token = params.get('token');
  const key = params.get('key');
  const operator = token || key ? null : remembered();
  const credential: Credential | null = token
    ? { kind: 'inboxToken', value: token }
    : key
      ? { kind: 'bearer', value: key }
      : operator
        ? { kind: 'bearer', value: operator }
        : null;
  return { credential, credentialParam: token ? 'token' : key ? 'key' : null, inbox: params.get('inbox'), message: params.get('message') };
}

function hashOf(route: Route): string {
  const params = new URLSearchParams();
  if (route.credential && route.credentialParam) params.set(route.credentialParam, route.credential.value);
  if (route.inbox) params.set('inbox', route.inbox);
  if (route.message) params.set('message', route.message);
  return `#${params}`;
}

const app = document.getElementById('app')!;
const liveStatus = document.getElementById('live-status')!;
const announcer = document.getElementById('announcer')!;

function announce(text: string): void {
  announcer.textContent = '';
  // A fresh text node, so screen readers announce a repeated message again.
  setTimeout(() => (announcer.textContent = text), 30);
}

// ---- theme ----
const THEMES = ['system', 'light', 'dark'] as const;
type Theme = (typeof THEMES)[number];
function applyTheme(theme: Theme): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  const button = document.getElementById('theme-toggle');
  if (button) button.textContent = `Theme: ${theme}`;
}
{
  let theme: Theme = 'system';
  try {
    const stored = localStorage.getItem('inboxkit-viewer-theme');
    if (stored && (THEMES as readonly string[]).includes(stored)) theme = stored as Theme;
  } catch {}
  applyTheme(theme);
  document.getElementById('theme-toggle')?.addEventListener('click', () => {
    theme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]!;
    applyTheme(theme);
    try {
      localStorage.setItem('inboxkit-viewer-theme', theme);
    } catch {}
  });
}

// ---- pages that are not the viewer ----
function errorPage(title: string, ...lines: Array<string | Node>): void {
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

function noCredentialPage(): void {
  errorPage(
    'This viewer needs a credential',
    'Open the viewer link that inboxkit serve printed (it ends in #key=tmo_…) once in this browser: from then on, links like this one (from a test report) open until the service restarts. Or paste an inbox token or API key below. A credential stays in the page’s address after the #, which the browser never sends to the server.',
    credentialForm(),
  );
}

function badCredentialPage(failure: ApiFailure): void {
  errorPage(
    'The credential in this link is not valid',
    `The inbox service refused it: ${failure.message}`,
    'An inbox token stops working when its inbox is deleted or expires; the operator token changes every time inboxkit serve starts. Open a fresh link, or paste another credential.',
    credentialForm(),
  );
}

function unreachablePage(failure: ApiFailure): void {
  errorPage('The inbox service cannot be reached', failure.message);
}

// ---- state ----
interface State {
  api: Api;
  route: Route;
  inboxes: Map<string, Inbox>;
  inboxFilter: string;
  messages: MessageSummary[];
  nextCursor: string | null;
  query: string;
  /** The inbox whose messages are listed. */
  listed: string | null;
  userStream: LiveStream | null;
  inboxStream: LiveStream | null;
  /** Bumped whenever the listed inbox or the query changes, so stale answers are dropped. */
  generation: number;
  /** Bumped whenever the list is reloaded (search), so a stale page is dropped. */
  listGeneration: number;
  messageGeneration: number;
  /** The first page of the deep-linked inbox, requested together with the inbox list. */
  prefetch: { inboxId: string; page: Promise<Page<MessageSummary>> } | null;
}

let state: State | null = null;

function closeStreams(): void {
  state?.userStream?.close();
  state?.inboxStream?.close();
  if (state) {
    state.userStream = null;
    state.inboxStream = null;
  }
}

function navigate(change: Partial<Pick<Route, 'inbox' | 'message'>>): void {
  if (!state) return;
  location.hash = hashOf({ ...state.route, ...change });
}

// ---- layout ----
function layout(): { inboxPane: HTMLElement; listPane: HTMLElement; messagePane: HTMLElement } {
  let inboxPane = document.getElementById('inbox-pane');
  let listPane = document.getElementById('list-pane');
  let messagePane = document.getElementById('message-pane');
  if (!inboxPane || !listPane || !messagePane) {
    inboxPane = h('nav', { id: 'inbox-pane', class: 'col', 'aria-labelledby': 'inboxes-heading' });
    listPane = h('section', { id: 'list-pane', class: 'col', 'aria-labelledby': 'messages-heading' });
    messagePane = h('main', { id: 'message-pane', class: 'col', 'aria-labelledby': 'message-heading' });
    replace(app, h('div', { class: 'layout' }, inboxPane, listPane, messagePane));
  }
  return { inboxPane, listPane, messagePane };
}

/** `1 message`, `3 messages`. */
function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en')} ${noun}${count === 1 ? '' : 's'}`;
}

// ---- inboxes ----
function sortedInboxes(s: State): Inbox[] {
  return [...s.inboxes.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

function renderInboxes(): void {
  if (!state) return;
  const s = state;
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
          h('span', { class: 'line' }, h('strong', { class: 'address' }, inbox.address), h('span', { class: 'count' }, plural(inbox.messageCount, 'message'))),
          inbox.label ? h('span', { class: 'line label' }, inbox.label) : null,
          h('span', { class: 'line muted small' }, 'created ', time(inbox.createdAt, { short: true }), inbox.expiresAt ? ` · expires ${fromNow(inbox.expiresAt)}` : ' · never expires'),
        ),
      ),
    ),
  );
}

async function loadInboxes(s: State): Promise<void> {
  let cursor: string | null = null;
  do {
    const page = await s.api.inboxes(cursor);
    for (const inbox of page.items) s.inboxes.set(inbox.id, inbox);
    cursor = page.nextCursor;
  } while (cursor !== null && s.inboxes.size < 1000);
}

function onUserEvent(s: State, event: Parameters<Parameters<Api['userEvents']>[0]>[0]): void {
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

function backLink(): HTMLAnchorElement {
  return h('a', { href: state ? hashOf({ ...state.route, inbox: null, message: null }) : '#' }, 'Back to the inboxes');
}

// ---- messages ----
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
      h('strong', { class: 'line subject' }, message.subject || '(no subject)', message.hasAttachments ? h('span', { class: 'badge' }, 'attachment') : null),
      h('span', { class: 'line muted small preview' }, message.preview.slice(0, 120)),
    ),
  );
}

function renderMessageList(): void {
  if (!state) return;
  const s = state;
  const list = document.getElementById('message-list');
  const more = document.getElementById('load-more') as HTMLButtonElement | null;
  const count = document.getElementById('message-count');
  if (!list || !more || !count) return;
  const inbox = s.listed ? s.inboxes.get(s.listed) : undefined;
  if (s.messages.length === 0) {
    replace(list, h('li', { class: 'muted' }, s.query ? `No message matches “${s.query}”.` : 'No messages yet. New mail appears here as it arrives.'));
  } else {
    replace(list, ...s.messages.map((m) => messageLink(s, m)));
  }
  more.hidden = s.nextCursor === null;
  count.textContent = s.query
    ? `${s.messages.length}${s.nextCursor ? '+' : ''} found for “${s.query}”`
    : `${plural(inbox?.messageCount ?? s.messages.length, 'message')}${s.nextCursor ? `, ${s.messages.length} shown` : ''}`;
}

async function openInbox(s: State, inboxId: string): Promise<boolean> {
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
  const more = h('button', { type: 'button', id: 'load-more', class: 'more' }, 'Load older messages');
  more.addEventListener('click', () => void loadMore(s));
  const list = h('ul', { id: 'message-list', class: 'items', 'aria-label': 'Messages' });
  list.addEventListener('keydown', (event) => onListKey(event));
  replace(
    listPane,
    h('div', { class: 'pane-head' }, h('h2', { id: 'messages-heading' }, inbox.address), h('div', { class: 'toolbar' }, deleteInbox)),
    inbox.label ? h('p', { class: 'label' }, inbox.label) : null,
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
  announce(`New message: ${message.subject || '(no subject)'}`);
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

function setLive(live: boolean): void {
  liveStatus.textContent = live ? 'Live' : 'Reconnecting…';
  liveStatus.className = live ? 'live on' : 'live off';
}

// ---- keyboard ----
function moveSelection(step: number): void {
  if (!state || state.messages.length === 0) return;
  const index = state.messages.findIndex((m) => m.id === state!.route.message);
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

// ---- message ----
async function showMessage(s: State, messageId: string | null): Promise<void> {
  const { messagePane } = layout();
  for (const a of document.querySelectorAll('.message-item')) {
    if ((a as HTMLElement).dataset.messageId === messageId) a.setAttribute('aria-current', 'true');
    else a.removeAttribute('aria-current');
  }
  const mine = ++s.messageGeneration;
  if (messageId === null) {
    replace(
      messagePane,
      h('h2', { id: 'message-heading', class: 'visually-hidden' }, 'Message'),
      h('p', { class: 'muted empty' }, s.listed ? 'Select a message. Keys: j / k or the arrow keys move between messages; / searches.' : 'Select an inbox.'),
    );
    return;
  }
  try {
    const message = await s.api.message(messageId);
    if (mine !== s.messageGeneration) return;
    if (s.route.inbox !== null && message.inboxId !== s.route.inbox) throw new ApiFailure(404, 'message_not_found', 'not in this inbox');
    renderMessage(messagePane, message, {
      api: s.api,
      announce,
      deleteMessage: async (id) => {
        try {
          await s.api.deleteMessage(id);
        } catch (error) {
          announce(`Could not delete the message: ${(error as Error).message}`);
          return;
        }
        const index = s.messages.findIndex((m) => m.id === id);
        s.messages = s.messages.filter((m) => m.id !== id);
        const inbox = s.inboxes.get(message.inboxId);
        if (inbox) inbox.messageCount = Math.max(0, inbox.messageCount - 1);
        renderMessageList();
        renderInboxes();
        announce('Message deleted.');
        const next = s.messages[Math.min(index, s.messages.length - 1)];
        navigate({ message: next?.id ?? null });
      },
    });
  } catch (error) {
    if (mine !== s.messageGeneration) return;
    if (error instanceof ApiFailure && error.status === 404) {
      replace(messagePane, h('h2', { id: 'message-heading' }, 'Message not found'), h('p', {}, `No message ${messageId} can be seen in this inbox with this link’s credential: it may have been deleted.`));
    } else if (error instanceof ApiFailure && error.status === 401) badCredentialPage(error);
    else replace(messagePane, h('h2', { id: 'message-heading' }, 'Could not load the message'), h('p', { role: 'alert' }, (error as Error).message));
  }
}

// ---- routing ----
async function start(route: Route): Promise<void> {
  closeStreams();
  state = null;
  if (!route.credential) {
    noCredentialPage();
    return;
  }
  const api = new Api(API_BASE, route.credential);
  const s: State = {
    api,
    route,
    inboxes: new Map(),
    inboxFilter: '',
    messages: [],
    nextCursor: null,
    query: '',
    listed: null,
    userStream: null,
    inboxStream: null,
    generation: 0,
    listGeneration: 0,
    messageGeneration: 0,
    prefetch: null,
  };
  state = s;
  replace(app, h('p', { class: 'muted loading' }, 'Loading…'));
  if (route.inbox) {
    // The deep-linked inbox's first page loads together with the list: it is what the user waits for.
    const page = api.messages(route.inbox, { limit: PAGE_SIZE });
    page.catch(() => {});
    s.prefetch = { inboxId: route.inbox, page };
  }
  try {
    await loadInboxes(s);
    if (route.credentialParam === 'key' && route.credential.value.startsWith('tmo_')) remember(route.credential.value);
  } catch (error) {
    if (state !== s) return;
    if (error instanceof ApiFailure && error.status === 401 && route.credentialParam === null) {
      remember(null);
      noCredentialPage();
    } else if (error instanceof ApiFailure && error.status === 401) badCredentialPage(error);
    else if (error instanceof ApiFailure) unreachablePage(error);
    return;
  }
  if (state !== s) return;
  s.userStream = api.userEvents((event) => onUserEvent(s, event), setLive);
  layout();
  renderInboxes();
  // An inbox token sees one inbox: open it.
  if (!route.inbox && route.credential.kind === 'inboxToken' && s.inboxes.size === 1) {
    s.route = { ...route, inbox: [...s.inboxes.keys()][0]! };
    history.replaceState(null, '', hashOf(s.route));
  }
  await applyRoute(s);
}

async function applyRoute(s: State): Promise<void> {
  if (!s.route.inbox) {
    s.inboxStream?.close();
    s.inboxStream = null;
    s.listed = null;
    const { listPane } = layout();
    replace(listPane, h('h2', { id: 'messages-heading' }, 'Messages'), h('p', { class: 'muted' }, s.inboxes.size > 0 ? 'Select an inbox.' : 'No inboxes yet.'));
    document.title = 'inboxkit inbox viewer';
    await showMessage(s, null);
    renderInboxes();
    return;
  }
  renderInboxes();
  if (!(await openInbox(s, s.route.inbox))) return;
  await showMessage(s, s.route.message);
}

function onHashChange(): void {
  const route = readRoute();
  const current = state;
  if (!current || !document.getElementById('inbox-pane') || current.route.credential?.value !== route.credential?.value || current.route.credentialParam !== route.credentialParam) {
    void start(route);
    return;
  }
  current.route = route;
  void applyRoute(current);
}

window.addEventListener('hashchange', onHashChange);
void start(readRoute());
