/**
 * The promise every single-result call returns.
 *
 * @packageDocumentation
 */
import type { ResponseInfo, WithResponse } from './types.ts';

/**
 * A promise of a call's result that can also give the HTTP answer behind it
 * (status, headers, `X-RateLimit-*` values, request id) through `.withResponse()`.
 * The request starts when the call is made.
 *
 * @example
 * ```ts
 * const inbox = await client.inboxes.create();
 * const { data, response } = await client.domains.list().withResponse();
 * console.log(data.length, response.rateLimit.remaining);
 * ```
 */
export class ApiPromise<T> implements PromiseLike<T> {
  readonly #inner: Promise<WithResponse<T>>;

  /** Wraps a promise of a result and its answer. Used by the client's resources. */
  constructor(inner: Promise<WithResponse<T>>) {
    this.#inner = inner;
  }

  /** The result together with the answer's status, headers, rate-limit values and request id. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#inner;
  }

  /** The answer's status, headers, rate-limit values and request id. */
  response(): Promise<ResponseInfo> {
    return this.#inner.then((r) => r.response);
  }

  /** Like `Promise.prototype.then`, on the result alone. */
  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#inner.then((r) => r.data).then(onfulfilled, onrejected);
  }

  /** Like `Promise.prototype.catch`. */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.then(undefined, onrejected);
  }

  /** Like `Promise.prototype.finally`. */
  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.then().finally(onfinally);
  }

  get [Symbol.toStringTag](): string {
    return 'ApiPromise';
  }
}
