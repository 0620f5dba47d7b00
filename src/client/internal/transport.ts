/**
 * The HTTP core of the client: one place that builds URLs and headers, sends
 * through the client's undici dispatcher, applies the per-attempt timeout and the
 * caller's AbortSignal, retries what may be retried, and turns failures into the
 * client's errors.
 */
import { request } from 'undici';
import type { Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import { ConnectionError, ResponseValidationError, TimeoutError, createApiError } from '../core/errors.ts';
import { abortErrorFor, sleep } from './sleep.ts';
import type { InboxkitError } from '../core/errors.ts';
import type { RequestOptions, ResponseInfo, RetryOptions } from '../core/types.ts';
import { flattenHeaders, readRateLimit } from './rate-limit.ts';
import { DEFAULT_RETRY_POLICY, decideRetry, parseRetryAfter } from './retry.ts';
import type { AttemptOutcome, RetryPolicy } from './retry.ts';

/** Everything the transport needs, resolved from the client's options. */
interface TransportConfig {
  /** API root without a trailing slash, e.g. `http://127.0.0.1:8025/api/v1`. */
  apiRoot: string;
  dispatcher: Dispatcher;
  timeoutMs: number;
  retry: RetryPolicy | null;
  userAgent: string;
  /** API key or session token, sent as `Authorization: Bearer`. */
  bearer: string | null;
  /** Inbox token, sent as `X-Inbox-Token` when there is no bearer credential. */
  inboxToken: string | null;
  /** Headers sent with every request before the client's own (see {@link EXTRA_HEADERS}). */
  extraHeaders?: Readonly<Record<string, string>>;
}

/**
 * The key of a private client option: headers sent with every request, for
 * inboxkit's own parts only (the MCP server mounted in the service sends the
 * service's on-behalf header with it). Not part of `ClientOptions`.
 */
export const EXTRA_HEADERS: unique symbol = Symbol('inboxkit.extraHeaders');

/** One call: method, path under the API root, query, JSON body. */
export interface CallSpec {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | undefined | null>;
  body?: unknown;
  accept?: string;
  /** Stream calls return once the headers are in; the timeout covers only that part. */
  stream?: boolean;
}

/** An answer whose body was read whole. */
export interface BufferedAnswer {
  status: number;
  url: string;
  method: string;
  body: Buffer;
  info: ResponseInfo;
}

/** An answer whose body is still arriving. */
export interface StreamingAnswer {
  status: number;
  url: string;
  method: string;
  body: Readable;
  info: ResponseInfo;
}

const EXCERPT = 500;

/** At most {@link EXCERPT} characters of `text`, marked when cut. */
export function excerpt(text: string): string {
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT)}… (${text.length} characters in all)` : text;
}

/** The retry policy of a call: the call's option over the client's. */
export function resolveRetry(base: RetryPolicy | null, override: RetryOptions | false | undefined): RetryPolicy | null {
  if (override === false) return null;
  if (override === undefined) return base;
  return { ...(base ?? DEFAULT_RETRY_POLICY), ...definedOnly(override) };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function parseErrorBody(text: string, status: number): { code: string; message: string; requestId: string | null } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { code: 'unknown_error', message: text.trim() === '' ? `HTTP ${status} with an empty body` : `HTTP ${status}: ${excerpt(text)}`, requestId: null };
  }
  const root = isRecord(json) ? json : {};
  const err = isRecord(root.error) ? root.error : root;
  const code = typeof err.code === 'string' ? err.code : typeof root.error === 'string' ? root.error : 'unknown_error';
  const message =
    typeof err.message === 'string' ? err.message : typeof root.message === 'string' ? root.message : `HTTP ${status}: ${excerpt(text)}`;
  const requestId = typeof err.requestId === 'string' ? err.requestId : typeof root.requestId === 'string' ? root.requestId : null;
  return { code, message, requestId };
}

/** A plain object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A call ready to send: what every attempt of it sends. */
interface PreparedCall {
  spec: CallSpec;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  timeoutMs: number;
  userSignal: AbortSignal | undefined;
}

/** Sends requests for one client. */
export class Transport {
  readonly config: TransportConfig;
  /** Set when the client that owns the dispatcher closed it. */
  closed = false;

  constructor(config: TransportConfig) {
    this.config = config;
  }

  /** The absolute URL of a path under the API root. */
  url(path: string, query?: CallSpec['query']): string {
    const url = new URL(this.config.apiRoot + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  private headers(spec: CallSpec, options: RequestOptions): Record<string, string> {
    const headers: Record<string, string> = {
      ...this.config.extraHeaders,
      accept: spec.accept ?? 'application/json',
      'user-agent': this.config.userAgent,
    };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    if (options.inboxToken !== undefined) headers['x-inbox-token'] = options.inboxToken;
    else if (this.config.bearer !== null) headers.authorization = `Bearer ${this.config.bearer}`;
    else if (this.config.inboxToken !== null) headers['x-inbox-token'] = this.config.inboxToken;
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    return headers;
  }

  /** Sends a call and reads the whole body. */
  async buffered(spec: CallSpec, options: RequestOptions = {}): Promise<BufferedAnswer> {
    const answer = await this.send({ ...spec, stream: false }, options);
    return answer as BufferedAnswer;
  }

  /** Sends a call and returns once the headers are in; the body is the caller's to consume. */
  async streaming(spec: CallSpec, options: RequestOptions = {}): Promise<StreamingAnswer> {
    const answer = await this.send({ ...spec, stream: true }, options);
    return answer as StreamingAnswer;
  }

  /**
   * Sends a call: one {@link Transport.attempt} at a time, retried as the
   * retry policy decides (`decideRetry`), with its delay between attempts.
   */
  private async send(spec: CallSpec, options: RequestOptions): Promise<BufferedAnswer | StreamingAnswer> {
    const policy = resolveRetry(this.config.retry, options.retry);
    const request: PreparedCall = {
      spec,
      url: this.url(spec.path, spec.query),
      headers: this.headers(spec, options),
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
      timeoutMs: options.timeout ?? this.config.timeoutMs,
      userSignal: options.signal,
    };
    const what = `${spec.method} ${request.url}`;
    if (this.closed) {
      throw new ConnectionError(`${what} was not sent: this client was closed with close(). Create a new client with createClient().`);
    }
    for (let retries = 0; ; retries++) {
      if (request.userSignal?.aborted) throw abortErrorFor(request.userSignal, what);
      const result = await this.attempt(request, retries);
      if ('answer' in result) return result.answer;
      const decision = decideRetry({ method: spec.method, outcome: result.outcome, retriesDone: retries, policy, random: Math.random(), now: Date.now() });
      if (!decision.retry) throw result.error(retries);
      await sleep(decision.delayMs, request.userSignal, what);
    }
  }

  /**
   * One attempt of a call, within its timeout: the answer of a 2xx, or how
   * the attempt failed (for the retry decision) and the error to throw if it
   * is not retried. A caller's abort throws at once.
   */
  private async attempt(call: PreparedCall, retries: number): Promise<{ answer: BufferedAnswer | StreamingAnswer } | { outcome: AttemptOutcome; error: (retriesDone: number) => InboxkitError }> {
    const { spec, url, headers, body, timeoutMs, userSignal } = call;
    const what = `${spec.method} ${url}`;
    const controller = new AbortController();
    let timedOut = false;
    const timer =
      timeoutMs > 0 && Number.isFinite(timeoutMs)
        ? setTimeout(() => {
            timedOut = true;
            controller.abort(new Error(`timeout of ${timeoutMs} ms`));
          }, timeoutMs)
        : undefined;
    const signal = userSignal ? AbortSignal.any([userSignal, controller.signal]) : controller.signal;
    try {
      const res = await request(url, {
        method: spec.method,
        headers,
        body,
        dispatcher: this.config.dispatcher,
        signal,
        headersTimeout: null,
        bodyTimeout: spec.stream ? 0 : null,
      });
      const resHeaders = flattenHeaders(res.headers);
      const info: ResponseInfo = {
        status: res.statusCode,
        headers: resHeaders,
        rateLimit: readRateLimit(resHeaders),
        requestId: resHeaders['x-request-id'] ?? null,
        retries,
      };
      if (res.statusCode >= 200 && res.statusCode < 300) {
        const answerBody = spec.stream ? res.body : Buffer.from(await res.body.arrayBuffer());
        clearTimeout(timer);
        return { answer: { status: res.statusCode, url, method: spec.method, body: answerBody, info } as BufferedAnswer | StreamingAnswer };
      }
      const text = await res.body.text();
      clearTimeout(timer);
      const parsed = parseErrorBody(text, res.statusCode);
      const retryAfterMs = parseRetryAfter(resHeaders['retry-after'], Date.now());
      return {
        outcome: { kind: 'status', status: res.statusCode, retryAfter: resHeaders['retry-after'] ?? null },
        error: (retriesDone) =>
          createApiError(
            {
              status: res.statusCode,
              code: parsed.code,
              serverMessage: parsed.message,
              requestId: parsed.requestId ?? resHeaders['x-request-id'] ?? null,
              rateLimit: readRateLimit(resHeaders),
              headers: resHeaders,
              method: spec.method,
              url,
              retries: retriesDone,
            },
            retryAfterMs === null ? null : Math.ceil(retryAfterMs / 1000),
          ),
      };
    } catch (cause) {
      clearTimeout(timer);
      if (userSignal?.aborted) throw abortErrorFor(userSignal, what);
      const tried = (n: number) => (n > 0 ? ` after ${n} ${n === 1 ? 'retry' : 'retries'}` : '');
      if (timedOut) {
        return {
          outcome: { kind: 'timeout' },
          error: (n) =>
            new TimeoutError(`${what} took longer than ${timeoutMs} ms${tried(n)}. Raise the \`timeout\` option (client or call), or check that the server is up and not overloaded.`, timeoutMs, { cause }),
        };
      }
      const reason = cause instanceof Error ? cause.message : String(cause);
      return {
        outcome: { kind: 'connection' },
        error: (n) =>
          new ConnectionError(
            `${what} could not be completed${tried(n)}: ${reason}. Check that baseUrl (${this.config.apiRoot}) points at a running server and that the network allows the connection.`,
            { cause },
          ),
      };
    }
  }

  /** Parses a buffered answer's `{ data }` envelope with `schema`. */
  data<S extends z.ZodType>(answer: BufferedAnswer, schema: S): z.output<S> {
    const payload = this.envelope(answer).data;
    return this.validate(answer, schema, payload);
  }

  /** The JSON body of an answer, which must be an object with `data`. */
  envelope(answer: BufferedAnswer): Record<string, unknown> & { data: unknown } {
    const text = answer.body.toString('utf8');
    const fail = (problem: string, cause?: unknown) =>
      new ResponseValidationError(
        `${answer.method} ${answer.url} answered ${answer.status} with ${problem}; expected JSON { "data": … }. Check that baseUrl (${this.config.apiRoot}) is the Disposable Inbox API v1 root. Body: ${JSON.stringify(excerpt(text))}`,
        { body: excerpt(text), status: answer.status, url: answer.url },
        { cause },
      );
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (cause) {
      throw fail(text.trim() === '' ? 'an empty body' : 'a body that is not JSON', cause);
    }
    if (!isRecord(json) || !('data' in json)) throw fail('JSON without the "data" envelope');
    return json as Record<string, unknown> & { data: unknown };
  }

  /** Validates a payload of an answer with `schema`, failing with a `ResponseValidationError`. */
  validate<S extends z.ZodType>(answer: { method: string; url: string; status: number }, schema: S, payload: unknown): z.output<S> {
    const result = schema.safeParse(payload);
    if (result.success) return result.data;
    const shown = excerpt(JSON.stringify(payload) ?? String(payload));
    const issues = result.error.issues
      .slice(0, 3)
      .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
      .join('; ');
    throw new ResponseValidationError(
      `${answer.method} ${answer.url} answered ${answer.status} with data that does not fit the contract (${issues}). The server may speak another version of the API; check baseUrl. Data: ${shown}`,
      { body: shown, status: answer.status, url: answer.url },
      { cause: result.error },
    );
  }
}
