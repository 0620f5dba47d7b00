/**
 * The viewer's second bundle, `email-clients.js`, loaded when the user first
 * opens client profiles or runs the checks: the caniemail package with its
 * data set (bundled for the browser by scripts/build-viewer.ts), and the same
 * code `message.compatibility()` and `toHaveScreenshot({ client })` run
 * (src/checks/compatibility.ts, src/checks/client-profile.ts: pure
 * code over HTML, handed this bundle's copy of the data).
 *
 * @packageDocumentation
 */
import * as caniemailPackage from 'caniemail';
import { profileWith } from '../checks/client-profile.ts';
import type { ClientProfileResult } from '../checks/client-profile.ts';
import { compatibilityWith } from '../checks/compatibility.ts';
import type { CaniemailLibrary, CompatibilityReport } from '../checks/compatibility.ts';

const library = caniemailPackage as unknown as CaniemailLibrary;

/** The email's compatibility with `clients` (the client's `checkCompatibility`, over this bundle's data). */
export function compatibility(html: string | null, clients: readonly string[]): CompatibilityReport {
  return compatibilityWith(library, html, clients);
}

/** `html` as `client` would render it, approximately, with what was removed (the client's `applyClientProfile`). */
export function profile(html: string, client: string): Promise<ClientProfileResult> {
  return profileWith(library, html, client);
}

export type { ClientProfileResult, CompatibilityReport };
