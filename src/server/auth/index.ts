/** Credentials: who is calling and what they may see. */
export type { Principal } from './principal.ts';
export { userOf } from './principal.ts';
export { createAuthMiddleware, resolvePrincipal } from './middleware.ts';
export type { CredentialHeaders } from './middleware.ts';
export { loadVisibleInbox, canSee, isActive, requireCredential } from './visibility.ts';
