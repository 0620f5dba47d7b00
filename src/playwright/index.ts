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
export type { InboxkitOptions, InboxkitTestFixtures, InboxkitWorkerFixtures, InboxkitAccount, CreateInbox, CreateTestInboxOptions } from './fixtures.ts';
export { TestInbox } from './test-inbox.ts';
export { inboxkitMatchers, describeLinkMatch } from './matchers.ts';
export type { LinkMatch, ToHaveReceivedOptions } from './matchers.ts';
export { defineConfig } from './config.ts';
export type { InboxkitConfig, InboxkitUseOptions } from './config.ts';
export { inboxkitServer } from './server.ts';
export type { InboxkitServer, InboxkitServerOptions, InboxkitServerEnv, WebServerEntry } from './server.ts';
export { renderEmailDocument } from './report.ts';
export { TestMessage } from './test-message.ts';
export { checkMessageLinks, describeCheckedLink, describeLinkReport } from './link-check.ts';
export type { LinkCheckOptions, LinkCheckReport, CheckedLink, LinkCheckContext } from './link-check.ts';
export type { CompatibilityOptions } from './check-matchers.ts';
export { DeliveryFaultsUnsupportedError } from '../client/index.ts';
export type { DeliveryFault, DeliveryFaultOptions, CompatibilityReport, ClientCompatibility, CompatibilityScore, FeatureUse, EmailClientNames } from '../client/index.ts';
export type { OpenableMessage } from './open.ts';
export { defaultWaitTimeout, teardownReserve } from './budget.ts';
export { WaitTimeoutError, UnexpectedMessageError } from '../client/index.ts';
export { describeCriteria } from '../client/internals.ts';
export type { MessageCriteria, MessageMatch, MessagePredicate, ReceivedMessage, ReceivedAttachment, WaitOptions, ExpectNoMessageOptions, ExtractedLink, LinkFilterArg, OtpCandidate } from '../client/index.ts';

/**
 * Playwright's `test` with the inboxkit fixtures: `inbox`, `createInbox` and
 * the `inboxkit` options.
 */
export const test = base.extend<InboxkitTestFixtures & InboxkitInternalTestFixtures, InboxkitWorkerFixtures>(inboxkitFixtures);

/** Playwright's `expect` with the inboxkit matchers: `toHaveReceived`, `toHaveLink`, `toHaveOtp`, `toHaveWorkingLinks`, `toBeCompatibleWith`. */
export const expect = baseExpect.extend(inboxkitMatchers);
