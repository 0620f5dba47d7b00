/**
 * The fixtures' private door into the client: helpers `inboxkit/playwright`
 * shares with the client but that are not the package's public API. This
 * file is absent from `package.json` `exports`, so users cannot import it;
 * lint lets `src/playwright` import it and `index.ts`, nothing else of the
 * client. Changing what is here is not a semver question.
 *
 * @packageDocumentation
 */
export { atCallSite, callLocation, captureCallSite, throwFromCall } from './call-site.ts';
export type { CallLocation, CallSite } from './call-site.ts';
export { describeCriteria, matchesPattern } from './criteria.ts';
export { formatAddress } from './format.ts';
export { describeLinkFilter } from '../extract/index.ts';
export { MESSAGE_FACTORY } from './inbox-handle.ts';
export { DEFAULT_HTTP_PORT, DEFAULT_SMTP_PORT, urlHost } from '../wire/defaults.ts';
export { checkMessageLinks, describeCheckedLink, describeLinkReport } from './link-check.ts';
export { authenticateMessage, MAILAUTH_INSTALL } from './authentication.ts';
export type { AuthenticatableMessage } from './authentication.ts';
export { testDnsResolver } from './test-dns.ts';
export type { DnsResolver } from './test-dns.ts';
export { listUnsubscribeUris } from '../extract/index.ts';
export { contentSourceOf } from './content-source.ts';
export type { ContentCheckable } from './content-source.ts';
export { clientFeatureSupport } from './compatibility.ts';
export type { ClientFeatureSupport } from './compatibility.ts';
export { prepareRenderHtml, renderSource } from './render-html.ts';
export type { PrepareRenderOptions, PreparedRender, RenderSource } from './render-html.ts';
