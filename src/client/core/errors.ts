/**
 * Errors thrown by the inboxkit client.
 *
 * Every error the client throws is an {@link InboxkitError}. HTTP failures are
 * {@link ApiError}s, subclassed by status family; network failures are
 * {@link ConnectionError}s; a request that ran out of time is a
 * {@link TimeoutError}; a 2xx answer whose body does not fit the contract is a
 * {@link ResponseValidationError} (not an HTTP error).
 *
 * @packageDocumentation
 */
import { InboxkitError } from '../../errors/inboxkit-error.ts';
import type { RateLimit } from './types.ts';

export { InboxkitError };

/** What the client knows about the HTTP answer that an {@link ApiError} stands for. */
export interface ApiErrorInit {
  /** HTTP status. */
  status: number;
  /** `error.code` of the body, or `unknown_error` when the body had none. */
  code: string;
  /** `error.message` of the body (or an excerpt of a body that was not the error envelope). */
  serverMessage: string;
  /** Request id from the body's `error.requestId` or the `X-Request-Id` header. */
  requestId: string | null;
  /** `X-RateLimit-*` values of the answer. */
  rateLimit: RateLimit;
  /** Response headers, lower-cased names. */
  headers: Record<string, string>;
  /** HTTP method of the request. */
  method: string;
  /** URL of the request. */
  url: string;
  /** Number of retries made before giving up. */
  retries: number;
}

/**
 * The API answered with an error status (4xx or 5xx). Branch on the subclass
 * (or `status`) first; `code` refines it (`inbox_not_found`, `address_taken`, …).
 */
export class ApiError extends InboxkitError {
  override name: string = 'ApiError';
  /** HTTP status. */
  readonly status: number;
  /** Machine-readable error code of the body, `unknown_error` when there was none. */
  readonly code: string;
  /** The server's own message, without the client's advice around it. */
  readonly serverMessage: string;
  /** Request id, to quote when reporting a server fault; `null` when the server sent none. */
  readonly requestId: string | null;
  /** `X-RateLimit-*` values of the failed answer. */
  readonly rateLimit: RateLimit;
  /** Response headers (lower-cased names). */
  readonly headers: Record<string, string>;
  /** HTTP method of the request that failed. */
  readonly method: string;
  /** URL of the request that failed. */
  readonly url: string;
  /** Retries made before this error was thrown. */
  readonly retries: number;

  constructor(init: ApiErrorInit, advice: string) {
    const where = `${init.method} ${init.url}`;
    const tried = init.retries > 0 ? ` (after ${init.retries} ${init.retries === 1 ? 'retry' : 'retries'})` : '';
    const id = init.requestId ? ` [request id ${init.requestId}]` : '';
    super(`${where} failed with ${init.status} ${init.code}${tried}: ${init.serverMessage}${id}. ${advice}`);
    // Each status family is a subclass of its own name (NotFoundError, ConflictError …): it names the error.
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.serverMessage = init.serverMessage;
    this.requestId = init.requestId;
    this.rateLimit = init.rateLimit;
    this.headers = init.headers;
    this.method = init.method;
    this.url = init.url;
    this.retries = init.retries;
  }
}

/** 400: the request was refused as invalid (`validation_error`, `invalid_grant`, `forwarding_unavailable`, …). Also used for 422. */
export class BadRequestError extends ApiError {}

/** 401: the credential is missing, unknown, expired or revoked. */
export class AuthenticationError extends ApiError {}

/** 403: the credential is valid but its plan does not allow this (`plan_required`). */
export class PermissionDeniedError extends ApiError {}

/** 404: no such inbox, message, attachment or domain — or not one the credential may see. */
export class NotFoundError extends ApiError {}

/** 409: a conflict, such as a custom address already in use (`address_taken`). */
export class ConflictError extends ApiError {}

/** 413: the request body is over the server's limit. */
export class PayloadTooLargeError extends ApiError {}

/** 429: over the rate limit. `retryAfter` says how long to wait. */
export class RateLimitError extends ApiError {
  /** Seconds to wait before trying again (from `Retry-After`), `null` when the server did not say. */
  readonly retryAfter: number | null;
  constructor(init: ApiErrorInit, advice: string, retryAfter: number | null) {
    super(init, advice);
    this.retryAfter = retryAfter;
  }
}

/** 5xx: a fault of the server. Quote `requestId` when reporting it. */
export class InternalServerError extends ApiError {}

/** The server could not be reached, or the connection broke before a whole answer arrived. */
export class ConnectionError extends InboxkitError {
  override name = 'ConnectionError';
}

/** A request took longer than its `timeout`. */
export class TimeoutError extends InboxkitError {
  override name = 'TimeoutError';
  /** The timeout that ran out, in milliseconds. */
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(message, options);
    this.timeoutMs = timeoutMs;
  }
}

/** The caller aborted the request or stream through its `AbortSignal`; `cause` is the signal's reason. */
export class AbortError extends InboxkitError {
  override name = 'AbortError';
}

/**
 * A successful answer whose body does not fit the contract (not JSON, no
 * `data`, a required field missing). `body` quotes a bounded excerpt of what came back.
 */
export class ResponseValidationError extends InboxkitError {
  override name = 'ResponseValidationError';
  /** At most 500 characters of the body that came back. */
  readonly body: string;
  /** HTTP status of the answer. */
  readonly status: number;
  /** URL of the request. */
  readonly url: string;
  constructor(message: string, init: { body: string; status: number; url: string }, options?: { cause?: unknown }) {
    super(message, options);
    this.body = init.body;
    this.status = init.status;
    this.url = init.url;
  }
}

/** What to do about an error of the given status. */
function adviceFor(status: number, code: string, retryAfter: number | null): string {
  if (status === 401) {
    return 'Check the credential given to createClient (apiKey, sessionToken or inboxToken): it is missing, unknown, expired or revoked. An inbox token only grants its own inbox.';
  }
  if (status === 403) return 'The plan of this credential does not include this; use an API key of a plan that does, or leave the option out.';
  if (status === 404 && code === 'not_found') {
    return 'The server has no such endpoint: check that baseUrl is the API root (or the bare origin of a server that serves /api/v1) and that the server implements this call.';
  }
  if (status === 404) {
    return 'Check the id. An inbox or message that is not visible to this credential answers as not found, and expired or deleted inboxes are gone.';
  }
  if (status === 409) return code === 'address_taken' ? 'Choose another localPart, or leave it out for a random address.' : 'The resource changed meanwhile; read it again and retry.';
  if (status === 413) return 'Send a smaller request body.';
  if (status === 429) {
    return retryAfter !== null
      ? `Wait ${retryAfter} s before the next request, lower the request rate, or raise the server's rate limit.`
      : 'Lower the request rate, or raise the server\'s rate limit.';
  }
  if (status === 503 && code === 'service_unavailable') {
    return `The service cannot do this right now: it cannot reach its database (a restart or a lost connection), or no node behind its balancer is ready (a rolling restart); retry${retryAfter !== null ? ` after ${retryAfter} s` : ' shortly'} (requests are retried by themselves while the service names a Retry-After, up to the client's retry.maxRetries).`;
  }
  if (status >= 500) return 'This is a fault of the server; retry later, and report it with the request id if it persists.';
  if (status === 400 || status === 422) return 'Fix the request as the server\'s message says.';
  return 'See the server\'s message.';
}

/** Builds the {@link ApiError} subclass for a failed answer. */
export function createApiError(init: ApiErrorInit, retryAfter: number | null): ApiError {
  const advice = adviceFor(init.status, init.code, retryAfter);
  switch (init.status) {
    case 400:
    case 422:
      return new BadRequestError(init, advice);
    case 401:
      return new AuthenticationError(init, advice);
    case 403:
      return new PermissionDeniedError(init, advice);
    case 404:
      return new NotFoundError(init, advice);
    case 409:
      return new ConflictError(init, advice);
    case 413:
      return new PayloadTooLargeError(init, advice);
    case 429:
      return new RateLimitError(init, advice, retryAfter);
    default:
      return init.status >= 500 ? new InternalServerError(init, advice) : new ApiError(init, advice);
  }
}
