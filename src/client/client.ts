/**
 * The inboxkit client: {@link createClient} and {@link InboxkitClient}.
 *
 * @packageDocumentation
 */
import { Agent } from 'undici';
import type { Dispatcher } from 'undici';
import { InboxkitError } from './core/errors.ts';
import { FaultsResource } from './faults.ts';
import { PhonesResource } from './phones.ts';
import { AttachmentsResource, DomainsResource, ExtensionResource, InboxesResource, MeResource, MessagesResource } from './resources.ts';
import type { ClientOptions } from './core/types.ts';
import { DEFAULT_RETRY_POLICY } from './internal/retry.ts';
import { EXTRA_HEADERS, Transport, resolveRetry } from './internal/transport.ts';

/** The package version, sent in the default `User-Agent`. */
export const VERSION = '0.1.0';

/** The API path appended to a `baseUrl` that is a bare origin. */
const API_PATH = '/api/v1';

/** The kind of credential a client sends by default. */
export type ClientCredential = 'apiKey' | 'session' | 'inboxToken' | 'none';

/** The API root of a `baseUrl`: an origin gets `/api/v1`; a URL with a path is the root itself. */
export function resolveApiRoot(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new InboxkitError(
      `createClient: baseUrl ${JSON.stringify(baseUrl)} is not a URL. Give the server origin (http://127.0.0.1:8025) or the API root (http://127.0.0.1:8025/api/v1).`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InboxkitError(`createClient: baseUrl ${JSON.stringify(baseUrl)} must be an http: or https: URL.`);
  }
  const path = url.pathname.replace(/\/+$/, '');
  return url.origin + (path === '' ? API_PATH : path);
}

function credentialOption(options: ClientOptions, name: 'apiKey' | 'sessionToken' | 'inboxToken'): string | null {
  const value = options[name];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new InboxkitError(`createClient: ${name} is ${typeof value === 'string' ? 'an empty string' : `a ${typeof value}`}; give the ${name} as a non-empty string, or leave the option out.`);
  }
  return value;
}

function checkTimeout(value: number | undefined, where: string): number {
  if (value === undefined) return 30_000;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new InboxkitError(`${where}: timeout must be a number of milliseconds ≥ 0 (0 disables it); got ${String(value)}.`);
  }
  return value;
}

/**
 * A client of the Disposable Inbox API v1. Make one with {@link createClient};
 * call `close()` when done to release its connections.
 */
export class InboxkitClient {
  /** The API root every path is relative to, e.g. `http://127.0.0.1:8025/api/v1`. */
  readonly apiUrl: string;
  /** The credential the client sends by default. */
  readonly credential: ClientCredential;
  /** `GET /domains`. */
  readonly domains: DomainsResource;
  /** Inboxes: create, list, get, update, delete, stream. */
  readonly inboxes: InboxesResource;
  /** Messages: list, get, delete, raw. */
  readonly messages: MessagesResource;
  /** Attachment downloads (bytes or stream). */
  readonly attachments: AttachmentsResource;
  /** The current user; signing out a session. */
  readonly me: MeResource;
  /** The extension's PKCE connect flow. */
  readonly extension: ExtensionResource;
  /** Delivery faults on demand (an inboxkit extension; see `inbox.failDeliveries()`). */
  readonly faults: FaultsResource;
  /** Phones: inboxes with a phone number that receive SMS (an inboxkit extension). */
  readonly phones: PhonesResource;
  readonly #options: ClientOptions;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #transport: Transport;
  #closed = false;

  /** Prefer {@link createClient}. */
  constructor(options: ClientOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new InboxkitError('createClient needs an options object: createClient({ baseUrl: "http://127.0.0.1:8025" }).');
    }
    this.#options = options;
    this.apiUrl = resolveApiRoot(options.baseUrl);
    const apiKey = credentialOption(options, 'apiKey');
    const sessionToken = credentialOption(options, 'sessionToken');
    const inboxToken = credentialOption(options, 'inboxToken');
    if (apiKey !== null && sessionToken !== null) {
      throw new InboxkitError('createClient: give either apiKey or sessionToken, not both (both are sent as Authorization: Bearer).');
    }
    this.credential = apiKey !== null ? 'apiKey' : sessionToken !== null ? 'session' : inboxToken !== null ? 'inboxToken' : 'none';
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 10_000, connections: 16 });
    const transport = (this.#transport = new Transport({
      apiRoot: this.apiUrl,
      dispatcher: this.#dispatcher,
      timeoutMs: checkTimeout(options.timeout, 'createClient'),
      retry: resolveRetry(DEFAULT_RETRY_POLICY, options.retry),
      userAgent: options.userAgent ?? `inboxkit/${VERSION}`,
      bearer: apiKey ?? sessionToken,
      inboxToken,
      extraHeaders: (options as { [EXTRA_HEADERS]?: Record<string, string> })[EXTRA_HEADERS],
    }));
    this.domains = new DomainsResource(transport);
    this.inboxes = new InboxesResource(transport, this);
    this.messages = new MessagesResource(transport);
    this.attachments = new AttachmentsResource(transport);
    this.me = new MeResource(transport);
    this.extension = new ExtensionResource(transport);
    this.faults = new FaultsResource(transport);
    this.phones = new PhonesResource(transport, this.inboxes);
  }

  /**
   * A client with some options changed (e.g. a `sessionToken` after `extension.exchange()`),
   * sharing this client's connections. Closing it does not close this client's dispatcher.
   *
   * @example
   * ```ts
   * const token = await client.extension.exchange(code, verifier, redirectUri);
   * const session = client.withOptions({ apiKey: undefined, sessionToken: token.accessToken });
   * ```
   */
  withOptions(overrides: Partial<Omit<ClientOptions, 'dispatcher'>>): InboxkitClient {
    return new InboxkitClient({ ...this.#options, ...overrides, dispatcher: this.#dispatcher });
  }

  /** Releases the client's connections (when it created its own dispatcher). Idempotent. */
  async close(): Promise<void> {
    if (!this.#ownsDispatcher || this.#closed) return;
    this.#closed = true;
    this.#transport.closed = true;
    await this.#dispatcher.close();
  }

  /** `await using client = createClient(…)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/**
 * Creates a client of the Disposable Inbox API v1.
 *
 * `baseUrl` is the server origin (`/api/v1` is appended) or, when it has a path, the
 * API root itself. Credentials: `apiKey` or `sessionToken` (sent as Bearer), or
 * `inboxToken` (guest access to one inbox, sent as `X-Inbox-Token`); with none, a
 * guest can still create inboxes and use them through the returned handles.
 *
 * @example
 * ```ts
 * import { createClient } from 'inboxkit';
 * const client = createClient({ baseUrl: 'http://127.0.0.1:8025', apiKey: process.env.INBOX_API_KEY });
 * const inbox = await client.inboxes.create();
 * ```
 */
export function createClient(options: ClientOptions): InboxkitClient {
  return new InboxkitClient(options);
}
