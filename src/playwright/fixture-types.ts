/**
 * The fixtures' types: the `inboxkit` options and the test- and worker-scoped
 * fixtures `fixtures.ts` provides.
 *
 * @packageDocumentation
 */
import type { InboxkitClient, TestDns } from '../client/index.ts';
import type { Authenticator } from './authenticator/authenticator.ts';
import type { BrowserSource } from './render.ts';
import type { PhoneCountry } from '../client/index.ts';
import type { TestInbox } from './test-inbox.ts';
import type { TestPhone } from './test-phone.ts';

/**
 * The fixtures' options, set under one key in the config's (or a project's)
 * `use`: `use: { inboxkit: { baseUrl, apiKey } }`. The object is replaced as a
 * whole, not merged: to change one field, spread the rest.
 */
export interface InboxkitOptions {
  /**
   * The service: its origin (`http://127.0.0.1:8025`, the API under `/api/v1`)
   * or its API root (a URL with a path, e.g. `https://api.example.com/v1`).
   * @defaultValue 'http://127.0.0.1:8025' (the local service `inboxkitServer()` and `inboxkit serve` start)
   */
  baseUrl?: string;
  /**
   * API key (`tm_…`) for a hosted service or a local one started with `--api-key`.
   * Without one, inboxes are made as a guest and read through their own inbox tokens.
   *
   * Prefer a function, `apiKey: () => process.env.INBOXKIT_API_KEY`: reporters
   * serialize each project's `use` (the JSON reporter writes it into its
   * report), and a function is left out of that, so the key never lands in a
   * report file. It is called once per worker.
   */
  apiKey?: string | (() => string | undefined);
  /**
   * Mail domain of the inboxes (one of the service's domains).
   * @defaultValue the service's default domain
   */
  domain?: string;
  /**
   * Longest wait, in milliseconds, when a wait gives no timeout; 0 for no limit of its own.
   * The test's remaining time (minus a reserve for teardown) bounds it either way.
   * @defaultValue the test's remaining time minus a teardown reserve
   */
  waitTimeout?: number;
  /**
   * Keep the inboxes of a failed test instead of deleting them; an annotation
   * (`inboxkit: kept inbox`) in the report says how to look at them.
   * @defaultValue false
   */
  keepOnFailure?: boolean;
  /**
   * Attach each message a wait returns (and, when a test fails, every message
   * its inboxes received) to the report: rendered HTML, text, headers, raw `.eml`.
   * @defaultValue true
   */
  attachToReport?: boolean;
  /**
   * The test DNS that sender authentication (`message.authentication()`,
   * `toBeAuthenticated`) reads instead of the network: each DNS name to its TXT
   * records (a string or array of strings) or to `{ TXT, A, AAAA, MX, CNAME, PTR }`.
   * A name it lacks does not exist. A call's own `dns` adds to it, name by name.
   * @defaultValue `{}`
   */
  dns?: TestDns;
}

/** Options of `createInbox()`. */
export interface CreateTestInboxOptions {
  /**
   * The local part (before `@`), exactly. When the plan does not allow custom
   * addresses the service refuses it (403 `plan_required`).
   * @defaultValue one made from the test's title, the worker and a random suffix when the plan allows it; random otherwise
   */
  localPart?: string;
  /**
   * Mail domain of this inbox.
   * @defaultValue the `domain` option, else the service's default domain
   */
  domain?: string;
  /**
   * Label stored with the inbox.
   * @defaultValue the test's title path
   */
  label?: string;
}

/** Makes another inbox for the running test; every one is deleted when the test ends. */
export type CreateInbox = (options?: CreateTestInboxOptions) => Promise<TestInbox>;

/** Options of `createPhone()`. */
export interface CreateTestPhoneOptions {
  /**
   * Country of the number: `US` (+1 NXX 555-01xx), `AU` (+61 491 57x xxx) or `FR` (+33 6 39 98 xx xx).
   * @defaultValue 'US'
   */
  country?: PhoneCountry;
  /**
   * Label stored with the phone.
   * @defaultValue the test's title path
   */
  label?: string;
}

/** Makes a phone for the running test; every one is deleted when the test ends. */
export type CreatePhone = (options?: CreateTestPhoneOptions) => Promise<TestPhone>;

/** The test-scoped fixtures. */
export interface InboxkitTestFixtures {
  /** A fresh inbox for this test, made when the test first uses it, deleted when it ends. */
  inbox: TestInbox;
  /** Makes more inboxes for this test (e.g. two users); all are deleted when it ends. */
  createInbox: CreateInbox;
  /** A simulated authenticator app: `enroll()` reads the page's QR code, `code()` gives TOTP/HOTP codes. */
  authenticator: Authenticator;
  /** A fresh phone (a US number) for this test, made when the test first uses it, deleted when it ends. */
  phone: TestPhone;
  /** Makes phones for this test, e.g. in another country; all are deleted when it ends. */
  createPhone: CreatePhone;
}

/** What the service allows the configured credential, read once per worker (and never changed by a test). */
export interface InboxkitAccount {
  /** Whether inboxes may be given a chosen local part. */
  readonly customAddresses: boolean;
  /** Id of the configured `domain`, `undefined` for the service's default. */
  readonly domainId: string | undefined;
  /** Ids of the service's domains by name (lower-case). */
  readonly domainIds: ReadonlyMap<string, string>;
}

/** The worker-scoped fixtures (`_inboxkit…` ones are plumbing, boxed out of reports). */
export interface InboxkitWorkerFixtures {
  /** The options; see {@link InboxkitOptions}. */
  inboxkit: InboxkitOptions;
  /** The worker's client of the service. */
  _inboxkitClient: InboxkitClient;
  /** What the service allows this worker's credential. */
  _inboxkitAccount: InboxkitAccount;
  /** The browser emails are rendered in (launched on first use). */
  _inboxkitRenderBrowser: BrowserSource;
}

/** Internal test-scoped fixtures. */
export interface InboxkitInternalTestFixtures {
  /** `performance.now()` when the test started (for the wait budget). */
  _inboxkitTestStart: number;
}
