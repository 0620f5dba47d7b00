/**
 * `inboxkit/playwright`: Playwright fixtures that give every test its own
 * inbox, matchers for email, report integration, and the config helper that
 * starts the local inbox service.
 *
 * @example
 * ```ts
 * import { test, expect } from 'inboxkit/playwright';
 *
 * test('signs up with a confirmation link', async ({ page, inbox }) => {
 *   await page.goto('/signup');
 *   await page.getByLabel('Email').fill(inbox.address);
 *   await page.getByRole('button', { name: 'Create account' }).click();
 *   const message = await inbox.waitForMessage({ subject: 'Confirm your email' });
 *   await page.goto(message.link('Confirm email').href);
 *   await expect(page.getByRole('status')).toHaveText('Email confirmed');
 * });
 * ```
 *
 * @packageDocumentation
 */
// First: fails with one line on an unsupported Node.js, before any dependency loads.
import '../runtime/node-check.ts';
import { test as base, expect as baseExpect } from '@playwright/test';
import { inboxkitFixtures } from './fixtures.ts';
import type { InboxkitInternalTestFixtures, InboxkitTestFixtures, InboxkitWorkerFixtures } from './fixtures.ts';
import { inboxkitMatchers } from './matchers.ts';

export { inboxkitFixtures, DEFAULT_BASE_URL } from './fixtures.ts';
export type { InboxkitOptions, InboxkitTestFixtures, InboxkitWorkerFixtures, InboxkitAccount, CreateInbox, CreateTestInboxOptions, CreatePhone, CreateTestPhoneOptions } from './fixtures.ts';
export { TestInbox } from './test-inbox.ts';
export { TestPhone } from './test-phone.ts';
export { inboxkitMatchers } from './matchers.ts';
export type { LinkMatch, ToHaveReceivedOptions } from './matchers.ts';
export { defineConfig } from './config.ts';
export type { InboxkitConfig, InboxkitUseOptions } from './config.ts';
export { inboxkitServer } from './server.ts';
export type { InboxkitServer, InboxkitServerOptions, InboxkitServerEnv, WebServerEntry } from './server.ts';
export { TestMessage } from './test-message.ts';
export type { LinkCheckOptions, LinkCheckReport, CheckedLink, LinkCheckContext } from './link-check.ts';
export type { CompatibilityOptions } from './check-matchers.ts';
export type { EmailScreenshotOptions } from './visual-matchers.ts';
export type { AccessibilityOptions, AccessibilityViolation, AxeImpact } from './accessibility.ts';
export { EMAIL_IRRELEVANT_RULES } from './accessibility.ts';
export type { RenderOptions, RenderWidth, RenderedEmail } from './render.ts';
// From the client, so a snapshot or accessibility test names a render's images, masked parts and client profile with the one import it already has.
export { applyClientProfile, CLIENT_PROFILE_NOTE } from '../client/index.ts';
export type { ClientProfileResult, ProfileRemoval, DynamicPart, ImageMode } from '../client/index.ts';
export type { EmailChecksOptions } from './email-check-matchers.ts';
export type { AuthenticationExpectations, ContentExpectations, SpamExpectations, ExpectedAuthResult } from './email-checks.ts';
export type { UnsubscribeResult } from './test-message.ts';
export type { ResolvableLink, ResolvedLink, ResolveLinkOptions } from './resolve-link.ts';
// From the client, so an email-checks test types its test DNS, reads the reports and findings the matchers attach, and catches a missing scanner without importing `inboxkit` too.
export { CONTENT_RULES, SpamCheckUnavailableError } from '../client/index.ts';
export type { TestDns, DnsRecordSet, AuthenticationReport, AuthenticationOptions, DkimSignatureResult, ContentFinding, ContentRule, ContentCheckOptions, SpamCheck, SpamRule, Envelope } from '../client/index.ts';
// From the client, so a test that makes the intake refuse mail (`inbox.failDeliveries()`) or reads `message.compatibility()` has the types and the error with `test` and `expect`.
export { DeliveryFaultsUnsupportedError } from '../client/index.ts';
export type { DeliveryFault, DeliveryFaultOptions, CompatibilityReport, ClientCompatibility, CompatibilityScore, FeatureUse, EmailClientNames } from '../client/index.ts';
export type { OpenableMessage } from './open.ts';
export { Authenticator, DEFAULT_MIN_REMAINING } from './authenticator/authenticator.ts';
export type { EnrollOptions, EnrollSource } from './authenticator/authenticator.ts';
export { AuthenticatorDevice } from './authenticator/device.ts';
export type { AuthenticatorClock, CodeOptions } from './authenticator/device.ts';
export { AuthenticatorError } from './authenticator/otp-params.ts';
export type { OtpAlgorithm } from './authenticator/otp-params.ts';
// From the client, so a test's waits (criteria, options, the message they return and the errors they throw) are typed from the same import as the `inbox` fixture.
export { WaitTimeoutError, UnexpectedMessageError } from '../client/index.ts';
export type { MessageCriteria, MessageMatch, MessagePredicate, ReceivedMessage, ReceivedAttachment, WaitOptions, ExpectNoMessageOptions, ExtractedLink, LinkFilterArg, OtpCandidate } from '../client/index.ts';

/**
 * Playwright's `test` with the inboxkit fixtures: `inbox`, `createInbox`,
 * `authenticator` and the `inboxkit` options.
 */
export const test = base.extend<InboxkitTestFixtures & InboxkitInternalTestFixtures, InboxkitWorkerFixtures>(inboxkitFixtures);

/**
 * Playwright's `expect` with the inboxkit matchers: `toHaveReceived`, `toHaveLink`, `toHaveOtp`, `toHaveWorkingLinks`, `toBeCompatibleWith`,
 * `toHaveScreenshot` (on a message), `toBeAccessible`, `toBeAuthenticated`, `toPassContentChecks`, `toPassSpamCheck`, `toPassEmailChecks`.
 */
export const expect = baseExpect.extend(inboxkitMatchers);
