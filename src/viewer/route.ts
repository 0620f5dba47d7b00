/**
 * The viewer's address fragment: the credential and the view
 * (`#key=…&inbox=<id>&message=<id>`), read and written, and the operator token
 * the browser remembers.
 *
 * @packageDocumentation
 */
import type { Credential } from './api.ts';

/** What the fragment says. */
export interface Route {
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

export function remember(value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(REMEMBERED_OPERATOR);
    else localStorage.setItem(REMEMBERED_OPERATOR, value);
  } catch {}
}

export function readRoute(): Route {
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

export function hashOf(route: Route): string {
  const params = new URLSearchParams();
  if (route.credential && route.credentialParam) params.set(route.credentialParam, route.credential.value);
  if (route.inbox) params.set('inbox', route.inbox);
  if (route.message) params.set('message', route.message);
  return `#${params}`;
}
