/**
 * The fixtures' private door into the client: helpers `inboxkit/playwright`
 * shares with the client but that are not the package's public API. This
 * file is absent from `package.json` `exports`, so users cannot import it;
 * lint lets `src/playwright` import it and `index.ts`, nothing else of the
 * client. Changing what is here is not a semver question.
 *
 * @packageDocumentation
 */
export { atCallSite, callLocation, captureCallSite, throwFromCall } from './core/call-site.ts';
export type { CallLocation, CallSite } from './core/call-site.ts';
export { describeCriteria, matchesPattern } from './message/criteria.ts';
export { formatAddress } from './core/format.ts';
export { describeLinkFilter } from '../extract/index.ts';
export { MESSAGE_FACTORY } from './inbox-handle.ts';
export { DEFAULT_HTTP_PORT, DEFAULT_SMTP_PORT, urlHost } from '../wire/defaults.ts';
export { checkMessageLinks, describeCheckedLink, describeLinkReport } from './link-check.ts';
export { authenticateMessage, MAILAUTH_INSTALL } from './message/authentication.ts';
export type { AuthenticatableMessage } from './message/authentication.ts';
export { mergeTestDns, testDnsResolver } from './message/test-dns.ts';
export type { DnsResolver } from './message/test-dns.ts';
export { listUnsubscribeUris } from '../extract/index.ts';
export { contentSourceOf } from './message/content-source.ts';
export type { ContentCheckable } from './message/content-source.ts';
export { clientFeatureSupport } from './message/compatibility.ts';
export type { ClientFeatureSupport } from './message/compatibility.ts';
export { prepareRenderHtml, renderSource } from './render-html.ts';
export type { PrepareRenderOptions, PreparedRender, RenderSource } from './render-html.ts';
export { postInboundSms } from './inbound-sms.ts';
