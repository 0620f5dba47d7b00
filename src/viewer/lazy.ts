/**
 * The viewer's parts loaded on first use, as separate files the server serves
 * next to `viewer.js`: `email-clients.js` (caniemail's data, client profiles
 * and compatibility, about a megabyte) and, when axe-core was installed at
 * build time, `axe.min.js` with `axe-runner.js`. The first page load costs
 * none of them.
 *
 * @packageDocumentation
 */
import type * as EmailClients from './email-clients.ts';

/** Where the viewer's files are served. */
export const ASSET_BASE = '/viewer/';

let emailClients: Promise<typeof EmailClients> | null = null;

/** The `email-clients.js` bundle, fetched once (a failed fetch is tried again next time). */
export function loadEmailClients(): Promise<typeof EmailClients> {
  emailClients ??= (import(/* @vite-ignore */ `${ASSET_BASE}email-clients.js`) as Promise<typeof EmailClients>).catch((error: unknown) => {
    emailClients = null;
    throw new Error(`Could not load the client data (${ASSET_BASE}email-clients.js): ${(error as Error).message}. Rebuild the viewer with npm run build.`, { cause: error });
  });
  return emailClients;
}

/** The client profiles the Renders tab shows by default, and the clients the Checks tab checks. */
export const VIEWER_CLIENTS = ['gmail.desktop-webmail', 'outlook.windows', 'apple-mail.ios'] as const;
