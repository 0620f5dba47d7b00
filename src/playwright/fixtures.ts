/**
 * The fixtures: `inbox`, `createInbox`, `authenticator`, the `inboxkit` options
 * and the worker-scoped client and render browser behind them.
 * @packageDocumentation
 */
import { performance } from 'node:perf_hooks';
import type { Fixtures, PlaywrightTestArgs, PlaywrightTestOptions, PlaywrightWorkerArgs, PlaywrightWorkerOptions, TestInfo } from '@playwright/test';
import { ConflictError, ConnectionError, InboxkitError, NotFoundError, PermissionDeniedError, createClient } from '../client/index.ts';
import { DEFAULT_HTTP_PORT } from '../wire/defaults.ts';
import type { InboxHandle, InboxkitClient } from '../client/index.ts';
import { defaultWaitTimeout } from './budget.ts';
import { localPartFor } from './local-part.ts';
import { attachMessage, MessageIndex, messageTitle } from './report.ts';
import { viewerLink, whereToLook } from './viewer-link.ts';
import { TestInbox } from './test-inbox.ts';
import { TestPhone } from './test-phone.ts';
import type { CreateTestPhoneOptions, InboxkitOptions, CreateTestInboxOptions, InboxkitTestFixtures, InboxkitAccount, InboxkitWorkerFixtures, InboxkitInternalTestFixtures } from './fixture-types.ts';
export type { CreatePhone, CreateTestPhoneOptions, InboxkitOptions, CreateTestInboxOptions, CreateInbox, InboxkitTestFixtures, InboxkitAccount, InboxkitWorkerFixtures, InboxkitInternalTestFixtures } from './fixture-types.ts';
import { authenticatorFixture } from './authenticator/authenticator.ts';
import { renderBrowserFixture } from './render-browser.ts';

/** Where the fixtures look for the service when no `baseUrl` is configured: `inboxkit serve`'s default. */
export const DEFAULT_BASE_URL = `http://127.0.0.1:${DEFAULT_HTTP_PORT}`;


/** Own budget of inbox creation and deletion, outside the test's timeout. */
const INBOX_FIXTURE_TIMEOUT = 30_000;
/** Timeout of each request made in teardown. */
const TEARDOWN_REQUEST_TIMEOUT = 10_000;
/** How many of an inbox's messages a failed test attaches at most. */
const MAX_ATTACHED_ON_FAILURE = 50;

function describeOrigin(options: InboxkitOptions): string {
  return options.baseUrl === undefined ? `${DEFAULT_BASE_URL} (the default)` : options.baseUrl;
}

function unreachable(options: InboxkitOptions, error: unknown): InboxkitError {
  const advice =
    options.baseUrl === undefined
      ? 'Start it for the run with inboxkitServer() in playwright.config (webServer), or run `npx inboxkit serve`; or set use: { inboxkit: { baseUrl } } to the service to use.'
      : 'Check that use.inboxkit.baseUrl points at a running service (the config\'s webServer list must start it before the tests).';
  return new InboxkitError(`inboxkit: cannot reach the inbox service at ${describeOrigin(options)}. ${advice}`, { cause: error });
}

async function readAccount(client: InboxkitClient, options: InboxkitOptions): Promise<InboxkitAccount> {
  try {
    const [me, domains] = await Promise.all([client.me.get(), client.domains.list()]);
    const domainIds = new Map(domains.map((d) => [d.domain.toLowerCase(), d.id]));
    let domainId: string | undefined;
    if (options.domain !== undefined) {
      domainId = domainIds.get(options.domain.toLowerCase());
      if (domainId === undefined) {
        throw new InboxkitError(
          `inboxkit: the domain ${JSON.stringify(options.domain)} set in use.inboxkit.domain is not a domain of the service at ${describeOrigin(options)}; its domains are ${domains.map((d) => d.domain).join(', ') || '(none)'}. Use one of them, or leave the option out for the default.`,
        );
      }
    }
    return { customAddresses: me.plan.entitlements.customAddresses, domainId, domainIds };
  } catch (error) {
    if (error instanceof ConnectionError) throw unreachable(options, error);
    throw error;
  }
}

function domainIdFor(account: InboxkitAccount, domain: string | undefined): string | undefined {
  if (domain === undefined) return account.domainId;
  const id = account.domainIds.get(domain.toLowerCase());
  if (id === undefined) {
    throw new InboxkitError(
      `createInbox: ${JSON.stringify(domain)} is not a domain of the service; its domains are ${[...account.domainIds.keys()].join(', ')}. Pass one of them, or leave domain out.`,
    );
  }
  return id;
}

/**
 * What one test's `createInbox` knows and remembers: the worker's client and
 * account, and whether chosen local parts still work (a plan can refuse them
 * although `/me` said yes; that is remembered for the test, never written back
 * to the worker's account).
 */
interface InboxMaker {
  readonly client: InboxkitClient;
  readonly account: InboxkitAccount;
  readonly testInfo: TestInfo;
  customAddresses: boolean;
  sequence: number;
}

async function createHandle(maker: InboxMaker, options: CreateTestInboxOptions): Promise<InboxHandle> {
  const { client, account, testInfo } = maker;
  const domainId = domainIdFor(account, options.domain);
  const label = (options.label ?? testInfo.titlePath.slice(1).join(' › ')).slice(0, 200);
  const base = { ...(domainId !== undefined ? { domainId } : {}), ...(label !== '' ? { label } : {}) };
  const sequence = maker.sequence++;
  if (options.localPart !== undefined) return client.inboxes.create({ ...base, localPart: options.localPart });
  if (maker.customAddresses) {
    for (let attempt = 0; attempt < 3; attempt++) {
      const localPart = localPartFor({ title: testInfo.title, workerIndex: testInfo.workerIndex, retry: testInfo.retry, sequence });
      try {
        return await client.inboxes.create({ ...base, localPart });
      } catch (error) {
        if (error instanceof ConflictError) continue;
        if (error instanceof PermissionDeniedError) {
          // The plan changed its mind (or /me was too optimistic): random addresses from now on.
          maker.customAddresses = false;
          break;
        }
        throw error;
      }
    }
  }
  return client.inboxes.create(base);
}

/** The key under which `createPhone` asks the `createInbox` fixture for a phone. */
const PHONE: unique symbol = Symbol('inboxkit.phone');
/** `createInbox` as `createPhone` calls it. */
type PhoneMaking = (options: { [PHONE]: CreateTestPhoneOptions }) => Promise<TestInbox>;

async function createPhoneHandle({ client, testInfo }: InboxMaker, options: CreateTestPhoneOptions): Promise<InboxHandle> {
  const label = (options.label ?? testInfo.titlePath.slice(1).join(' › ')).slice(0, 200);
  return client.phones.create({ ...(options.country !== undefined ? { country: options.country } : {}), ...(label !== '' ? { label } : {}) });
}

async function attachReceived(testInfo: TestInfo, inbox: TestInbox, several: boolean, attachedIds: Set<string>, index: MessageIndex): Promise<void> {
  const options = { timeout: TEARDOWN_REQUEST_TIMEOUT };
  const summaries: { id: string; seq: number }[] = [];
  for await (const summary of inbox.handle.messages({ limit: 100, ...options })) {
    summaries.push(summary);
    if (summaries.length >= MAX_ATTACHED_ON_FAILURE) break;
  }
  for (const summary of summaries.reverse()) {
    // A message a wait returned is in the report already (as "email N — …").
    if (attachedIds.has(summary.id)) continue;
    attachedIds.add(summary.id);
    const message = await inbox.handle.message(summary.id, options);
    const raw = await inbox.handle.raw(summary.id, options).then(
      (source) => source.bytes,
      () => null,
    );
    const phone = inbox.handle.phoneNumber;
    const where = several ? ` to ${phone ?? inbox.address}` : '';
    await attachMessage(testInfo, `received${where} #${summary.seq} — ${messageTitle(message)}`, message, raw, { index, kind: phone === null ? 'email' : 'SMS' });
  }
}

function keptNotice(inbox: TestInbox, client: InboxkitClient, testInfo: TestInfo): string {
  const lines = [
    `inboxkit: kept the inbox ${inbox.address} of the failed test "${testInfo.titlePath.slice(1).join(' › ')}" (keepOnFailure).`,
    `  id: ${inbox.id}; expires: ${inbox.expiresAt ?? 'never'}`,
    `  viewer: ${viewerLink(client.apiUrl, inbox.id)} (while the service runs: reuseExistingServer, or --db and a later \`inboxkit serve\`)`,
  ];
  if (client.credential === 'apiKey' || client.credential === 'session') {
    lines.push(`  messages: curl -H "Authorization: Bearer $INBOXKIT_API_KEY" ${client.apiUrl}/inboxes/${encodeURIComponent(inbox.id)}/messages`);
    lines.push(`  delete:   curl -X DELETE -H "Authorization: Bearer $INBOXKIT_API_KEY" ${client.apiUrl}/inboxes/${encodeURIComponent(inbox.id)}`);
  } else {
    lines.push(
      '  Its inbox token is a secret and is not printed; its messages are attached to the report. Open the viewer link after the operator link `inboxkit serve` printed, or configure use.inboxkit.apiKey to read kept inboxes through the API.',
    );
  }
  return lines.join('\n');
}

/** What the teardown of a test's inboxes needs. */
interface TeardownContext {
  client: InboxkitClient;
  testInfo: TestInfo;
  options: InboxkitOptions;
  attachToReport: boolean;
  /** Ids of the messages already attached to the test's report. */
  attachedIds: Set<string>;
  /** The test's messages on one page: attached once every message is. */
  messageIndex: MessageIndex;
}

/** Reports a kept inbox through the test's annotations (shown in every report), never on stdout. */
function reportKept(inbox: TestInbox, { client, testInfo }: TeardownContext): void {
  testInfo.annotations.push({ type: 'inboxkit: kept inbox', description: keptNotice(inbox, client, testInfo) });
}

/** Deletes an inbox; a problem is returned as a sentence (an inbox already gone is none). */
async function deleteInbox(inbox: TestInbox): Promise<string | null> {
  try {
    await inbox.handle.delete({ timeout: TEARDOWN_REQUEST_TIMEOUT });
    return null;
  } catch (error) {
    if (error instanceof NotFoundError) return null; // the test deleted it, or it expired
    return `could not delete ${inbox.address} (id ${inbox.id}; it expires on its own at ${inbox.expiresAt ?? 'never'}): ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * The end of a test's inboxes: when the test failed, their viewer links are
 * annotated and their messages attached to the report; then they are deleted, or kept (and reported) with `keepOnFailure`.
 * Throws an `InboxkitError` listing every problem once all were tried.
 */
async function tearDownInboxes(inboxes: TestInbox[], context: TeardownContext): Promise<void> {
  const { testInfo, options } = context;
  const failed = testInfo.status !== testInfo.expectedStatus;
  const problems: string[] = [];
  if (failed) {
    // A viewer link only leads somewhere for an inbox that is kept: the others are deleted below.
    if (options.keepOnFailure) for (const inbox of inboxes) testInfo.annotations.push({ type: 'inboxkit viewer', description: `${inbox.address}: ${viewerLink(context.client.apiUrl, inbox.id)}` });
  }
  if (failed && context.attachToReport) {
    for (const inbox of inboxes) {
      await attachReceived(testInfo, inbox, inboxes.length > 1, context.attachedIds, context.messageIndex).catch((error: unknown) => {
        problems.push(`could not attach the messages of ${inbox.address}: ${error instanceof Error ? error.message : String(error)}`);
      });
    }
  }
  await context.messageIndex.attachTo(testInfo, failed).catch((error: unknown) => {
    problems.push(`could not attach the page of the test's messages: ${error instanceof Error ? error.message : String(error)}`);
  });
  for (const inbox of inboxes) {
    if (failed && options.keepOnFailure) reportKept(inbox, context);
    else {
      const problem = await deleteInbox(inbox);
      if (problem !== null) problems.push(problem);
    }
  }
  if (problems.length > 0) throw new InboxkitError(`inboxkit teardown: ${problems.join('\n')}`);
}

/** The end of the worker's client: its connections are released. */
async function closeClient(client: InboxkitClient): Promise<void> {
  await client.close();
}

/**
 * The raw fixture definitions, for `test.extend(inboxkitFixtures)` or for
 * `mergeTests` with your own fixtures. Most suites import the ready `test`
 * instead.
 *
 * @example
 * ```ts
 * import { test as base } from '@playwright/test';
 * import { inboxkitFixtures } from 'inboxkit/playwright';
 *
 * export const test = base.extend(inboxkitFixtures).extend<{ user: { email: string } }>({
 *   user: async ({ inbox }, use) => use({ email: inbox.address }),
 * });
 * ```
 */
export const inboxkitFixtures: Fixtures<InboxkitTestFixtures & InboxkitInternalTestFixtures, InboxkitWorkerFixtures, Pick<PlaywrightTestArgs, 'request'> & Pick<PlaywrightTestOptions, 'baseURL'>, Pick<PlaywrightWorkerArgs, 'playwright'> & Pick<PlaywrightWorkerOptions, 'browserName' | 'connectOptions'>> = {
  inboxkit: [{}, { option: true, scope: 'worker' }],

  _inboxkitClient: [
    async ({ inboxkit }, use) => {
      const apiKey = typeof inboxkit.apiKey === 'function' ? inboxkit.apiKey() : inboxkit.apiKey;
      const client = createClient({ baseUrl: inboxkit.baseUrl ?? DEFAULT_BASE_URL, ...(apiKey !== undefined && apiKey !== '' ? { apiKey } : {}) });
      await use(client);
      await closeClient(client);
    },
    { scope: 'worker', box: true },
  ],

  _inboxkitAccount: [
    async ({ inboxkit, _inboxkitClient }, use) => {
      await use(await readAccount(_inboxkitClient, inboxkit));
    },
    { scope: 'worker', box: true, timeout: INBOX_FIXTURE_TIMEOUT },
  ],

  _inboxkitRenderBrowser: [renderBrowserFixture, { scope: 'worker', box: true }],

  _inboxkitTestStart: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      await use(performance.now());
    },
    { auto: true, box: true },
  ],

  createInbox: [
    async ({ inboxkit, _inboxkitClient: client, _inboxkitAccount: account, _inboxkitTestStart: start, _inboxkitRenderBrowser: renderBrowser, request, baseURL }, use, testInfo) => {
      const inboxes: TestInbox[] = [];
      const teardownTasks: Array<() => Promise<void>> = [];
      let attached = 0;
      const context = {
        testInfo,
        linkCheck: { request, baseURL },
        renderBrowser,
        dns: inboxkit.dns,
        attachToReport: inboxkit.attachToReport ?? true,
        nextAttachmentNumber: () => ++attached,
        whereToLook: (handle: InboxHandle) => whereToLook(handle, client.apiUrl, { keepOnFailure: inboxkit.keepOnFailure, attachToReport: inboxkit.attachToReport }),
        inboxCount: () => inboxes.length,
        attachedIds: new Set<string>(),
        messageIndex: new MessageIndex(),
        atTeardown: (task: () => Promise<void>) => void teardownTasks.push(task),
        defaultTimeout: () => defaultWaitTimeout({ testTimeout: testInfo.timeout, elapsed: performance.now() - start, waitTimeout: inboxkit.waitTimeout }),
      };
      const maker: InboxMaker = { client, account, testInfo, customAddresses: account.customAddresses, sequence: 0 };
      const create = async (options: CreateTestInboxOptions & { [PHONE]?: CreateTestPhoneOptions } = {}) => {
        const phone = options[PHONE];
        const inbox = phone ? new TestPhone(await createPhoneHandle(maker, phone), context, client.phones) : new TestInbox(await createHandle(maker, options), context);
        inboxes.push(inbox);
        return inbox;
      };
      await use(create);
      // The emails the waits returned go into the report (in order) before their inboxes go.
      for (const task of teardownTasks) await task().catch(() => {});
      await tearDownInboxes(inboxes, { client, testInfo, options: inboxkit, attachToReport: context.attachToReport, attachedIds: context.attachedIds, messageIndex: context.messageIndex });
    },
    { timeout: INBOX_FIXTURE_TIMEOUT },
  ],

  authenticator: authenticatorFixture,

  createPhone: [
    async ({ createInbox }, use) => {
      // createInbox makes phones too (one teardown, one report), through a key no user passes.
      await use(async (options = {}) => (await (createInbox as PhoneMaking)({ [PHONE]: options })) as TestPhone);
    },
    { timeout: INBOX_FIXTURE_TIMEOUT },
  ],

  phone: [
    async ({ createPhone }, use) => {
      await use(await createPhone());
    },
    { timeout: INBOX_FIXTURE_TIMEOUT },
  ],

  inbox: [
    async ({ createInbox }, use) => {
      await use(await createInbox());
    },
    { timeout: INBOX_FIXTURE_TIMEOUT },
  ],
};
