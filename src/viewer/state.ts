/**
 * The viewer's state: the API client, the route, the inboxes and the listed
 * messages, and the one current state (replaced when the credential changes).
 *
 * @packageDocumentation
 */
import type { Inbox, MessageSummary } from '../wire/schemas.ts';
import type { Api, LiveStream, Page } from './api.ts';
import { hashOf } from './route.ts';
import type { Route } from './route.ts';

/** Messages per page of the list. */
export const PAGE_SIZE = 50;

export interface State {
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

/** The current state, or null before a credential opened the viewer. */
export function currentState(): State | null {
  return state;
}

/** Makes `next` the current state. */
export function setState(next: State | null): void {
  state = next;
}

export function closeStreams(): void {
  state?.userStream?.close();
  state?.inboxStream?.close();
  if (state) {
    state.userStream = null;
    state.inboxStream = null;
  }
}

export function navigate(change: Partial<Pick<Route, 'inbox' | 'message'>>): void {
  if (!state) return;
  location.hash = hashOf({ ...state.route, ...change });
}
