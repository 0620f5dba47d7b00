/**
 * Option and result types of the inboxkit client.
 *
 * @packageDocumentation
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

/**
 * The `X-RateLimit-*` values of one answer. Each is `null` when the server did not send it.
 */
export interface RateLimit {
  /** Requests allowed in the current window (`X-RateLimit-Limit`). */
  limit: number | null;
  /** Requests left in the current window (`X-RateLimit-Remaining`). */
  remaining: number | null;
  /** Seconds until the window resets (`X-RateLimit-Reset`). */
  reset: number | null;
}

/** What the client saw of the HTTP answer behind a result. */
export interface ResponseInfo {
  /** HTTP status (200 for every success of this API). */
  status: number;
  /** Response headers, lower-cased names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** `X-RateLimit-*` values. */
  rateLimit: RateLimit;
  /** `X-Request-Id` header, `null` when absent. */
  requestId: string | null;
  /** Retries made before this answer (0 when the first attempt succeeded). */
  retries: number;
}

/** A result together with the answer it came from; see `ApiPromise.withResponse()`. */
export interface WithResponse<T> {
  /** The parsed result, as `await` alone would give it. */
  data: T;
  /** Status, headers, rate-limit values and request id of the answer. */
  response: ResponseInfo;
}

/**
 * Retry behaviour for idempotent requests (GET, HEAD, PUT, DELETE, OPTIONS) on
 * connection errors, timeouts, 408, 409, 429 and 5xx. POST and PATCH are never retried.
 */
export interface RetryOptions {
  /**
   * Retries after the first attempt.
   * @defaultValue 2
   */
  maxRetries?: number;
  /**
   * Delay before the first retry; doubled on each further one, with jitter.
   * @defaultValue 300
   */
  baseDelayMs?: number;
  /**
   * Upper bound of the backoff delay.
   * @defaultValue 8000
   */
  maxDelayMs?: number;
  /**
   * The longest `Retry-After` the client waits for; a longer one ends retrying and throws the error.
   * @defaultValue 60000
   */
  maxRetryAfterMs?: number;
}

/** Options every call accepts as its last argument. */
export interface RequestOptions {
  /** Aborts the request (and its retries); the call then rejects with an `AbortError`. */
  signal?: AbortSignal;
  /**
   * Milliseconds one attempt may take (for downloads as a stream: until the headers arrive).
   * @defaultValue the client's `timeout`
   */
  timeout?: number;
  /**
   * Retry behaviour of this call; `false` disables retries.
   * @defaultValue the client's `retry`
   */
  retry?: RetryOptions | false;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /**
   * Send this inbox token (`X-Inbox-Token`) instead of the client's credential.
   * Inbox handles set it when the client has no API key or session token.
   */
  inboxToken?: string;
}

/** Options of {@link createClient}. */
export interface ClientOptions {
  /**
   * The server origin (`http://127.0.0.1:8025`, to which `/api/v1` is appended) or the
   * API root itself (any URL with a path, used as is: `http://127.0.0.1:8025/api/v1`,
   * `https://api.example.com/v1`).
   */
  baseUrl: string;
  /** API key (`tm_…`), sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** Session token from `extension.exchange()`, sent as `Authorization: Bearer`. */
  sessionToken?: string;
  /** Inbox token (guest access to one inbox), sent as `X-Inbox-Token` when no API key or session token is set. */
  inboxToken?: string;
  /**
   * Milliseconds one attempt of a request may take.
   * @defaultValue 30000
   */
  timeout?: number;
  /**
   * Retry behaviour; `false` disables retries.
   * @defaultValue `{ maxRetries: 2, baseDelayMs: 300, maxDelayMs: 8000, maxRetryAfterMs: 60000 }`
   */
  retry?: RetryOptions | false;
  /**
   * The undici dispatcher to send requests through. The client does not close a dispatcher it was given.
   * @defaultValue a keep-alive `Agent` owned by the client, released by `client.close()`
   */
  dispatcher?: Dispatcher;
  /**
   * The `User-Agent` header.
   * @defaultValue `inboxkit/<version>`
   */
  userAgent?: string;
}

/** Cursor parameters of a list call. */
export interface ListParams {
  /** Start after this cursor (a page's `nextCursor`); the first page when absent. */
  cursor?: string;
  /**
   * Items per page, 1 to 100.
   * @defaultValue the server's default (20)
   */
  limit?: number;
}

/** An attachment's bytes with its name and type. */
export interface AttachmentDownload {
  /** The bytes, exactly as attached. */
  bytes: Uint8Array;
  /** File name from `Content-Disposition`, `null` when the server gave none. */
  filename: string | null;
  /** `Content-Type` of the answer. */
  contentType: string;
  /** Number of bytes. */
  size: number;
}

/** An attachment as a stream of bytes, with its name and type. */
export interface AttachmentStream {
  /** The bytes as they arrive (a Node.js Readable; `Readable.toWeb()` gives a web stream). */
  stream: Readable;
  /** File name from `Content-Disposition`, `null` when the server gave none. */
  filename: string | null;
  /** `Content-Type` of the answer. */
  contentType: string;
  /** `Content-Length`, `null` when the server did not send it. */
  size: number | null;
}

/** A message's raw source (`GET /messages/{id}/raw`). */
export interface RawMessage {
  /** The source's bytes, as received over SMTP. */
  bytes: Uint8Array;
  /** The source decoded as UTF-8 (lossless for 7-bit and UTF-8 mail). */
  text: string;
  /** `Content-Type` of the answer (`message/rfc822`). */
  contentType: string;
}
