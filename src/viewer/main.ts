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
import { Api, ApiFailure } from './api.ts';
import { h, replace } from './dom.ts';
import { loadInboxes, onUserEvent, renderInboxes } from './inboxes.ts';
import { openInbox, renderMessageList, setUpKeyboard } from './message-list.ts';
import { renderMessage } from './message-view.ts';
import { badCredentialPage, noCredentialPage, unreachablePage } from './pages.ts';
import { hashOf, readRoute, remember } from './route.ts';
import type { Route } from './route.ts';
import { announce, app, layout, setLive, setUpTheme } from './shell.ts';
import { PAGE_SIZE, closeStreams, currentState, navigate, setState } from './state.ts';
import type { State } from './state.ts';

const API_BASE = '/api/v1';

setUpTheme();
setUpKeyboard();

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

async function start(route: Route): Promise<void> {
  closeStreams();
  setState(null);
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
  setState(s);
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
    if (currentState() !== s) return;
    if (error instanceof ApiFailure && error.status === 401 && route.credentialParam === null) {
      remember(null);
      noCredentialPage();
    } else if (error instanceof ApiFailure && error.status === 401) badCredentialPage(error);
    else if (error instanceof ApiFailure) unreachablePage(error);
    return;
  }
  if (currentState() !== s) return;
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
  const current = currentState();
  if (!current || !document.getElementById('inbox-pane') || current.route.credential?.value !== route.credential?.value || current.route.credentialParam !== route.credentialParam) {
    void start(route);
    return;
  }
  current.route = route;
  void applyRoute(current);
}

window.addEventListener('hashchange', onHashChange);
void start(readRoute());
