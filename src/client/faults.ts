/**
 * Delivery faults on demand (an inboxkit extension of the API): make the
 * local service refuse or delay mail for one inbox, so a test can prove that
 * the application retries or reports the failure.
 *
 * @packageDocumentation
 */
import type { z } from 'zod';
import { ClearedDeliveryFaultSchema, DeliveryFaultRequestSchema, DeliveryFaultSchema, DeliveryFaultStateSchema } from '../wire/faults.ts';
import type { ClearedDeliveryFault, DeliveryFault, DeliveryFaultRequest } from '../wire/faults.ts';
import { ApiPromise } from './core/api-promise.ts';
import { ApiError, InboxkitError } from './core/errors.ts';
import { path } from './internal/path.ts';
import type { CallSpec, Transport } from './internal/transport.ts';
import type { RequestOptions } from './core/types.ts';

/**
 * What `inbox.failDeliveries()` accepts.
 *
 * @example
 * ```ts
 * await inbox.failDeliveries({ code: 451, count: 2 }); // the next two attempts: 451 4.3.0, then accepted
 * await inbox.failDeliveries({ code: 550 });           // every attempt: 550 5.7.1, until cleared
 * await inbox.failDeliveries({ kind: 'greylist' });    // the next attempt: 451 4.7.1 (greylisted), then accepted
 * await inbox.failDeliveries({ delayMs: 5_000 });      // accepted, but the 250 comes 5 s late
 * ```
 */
export type DeliveryFaultOptions = DeliveryFaultRequest;

/**
 * The server does not offer delivery faults (it answered 404 or 405 for the
 * extension's endpoint): a hosted service, or an older inboxkit.
 */
export class DeliveryFaultsUnsupportedError extends InboxkitError {
  override name = 'DeliveryFaultsUnsupportedError';
  /** The HTTP status of the refusal (404 or 405). */
  readonly status: number;
  constructor(apiUrl: string, status: number, cause: unknown) {
    super(
      `This server does not support delivery faults: ${apiUrl} answered ${status} to PUT /inboxes/{id}/delivery-fault. ` +
        'failDeliveries() is an inboxkit extension offered by the local service (`inboxkit serve`, `inboxkitServer()` in playwright.config); run the test against it, or skip the test on this server.',
      { cause },
    );
    this.status = status;
  }
}

const LooseFault = DeliveryFaultSchema.loose();
const LooseState = DeliveryFaultStateSchema.extend({ fault: LooseFault.nullable() }).loose();
const LooseCleared = ClearedDeliveryFaultSchema.loose();

/** Checks a fault before it is sent, so bad input fails with the field's name and no request. */
export function checkDeliveryFault(fault: unknown): DeliveryFaultRequest {
  const result = DeliveryFaultRequestSchema.safeParse(fault);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'the fault';
    const got = issue.path.length > 0 && typeof fault === 'object' && fault !== null ? ` (got ${JSON.stringify((fault as Record<string, unknown>)[String(issue.path[0])])})` : '';
    return `${field} ${issue.code === 'unrecognized_keys' ? issue.message.toLowerCase() : issue.message}${got}`;
  });
  throw new InboxkitError(`failDeliveries: ${problems.join('; ')}. Example: failDeliveries({ code: 451, count: 2 }) or failDeliveries({ delayMs: 2000 }).`);
}

/** The delivery-fault endpoints (`/inboxes/{id}/delivery-fault`, an inboxkit extension). */
export class FaultsResource {
  readonly #transport: Transport;
  /** Used by the client. */
  constructor(transport: Transport) {
    this.#transport = transport;
  }

  #call<S extends z.ZodType>(spec: CallSpec, options: RequestOptions | undefined, schema: S): ApiPromise<z.output<S>> {
    const transport = this.#transport;
    return new ApiPromise(
      (async () => {
        try {
          const answer = await transport.buffered(spec, options);
          return { data: transport.data(answer, schema), response: answer.info };
        } catch (error) {
          // An inbox the caller cannot see is `inbox_not_found`; any other 404 (or a 405) means no such endpoint.
          if (error instanceof ApiError && (error.status === 405 || (error.status === 404 && error.code !== 'inbox_not_found'))) {
            throw new DeliveryFaultsUnsupportedError(transport.config.apiRoot, error.status, error);
          }
          throw error;
        }
      })(),
    );
  }

  /** Sets (replaces) the delivery fault of an inbox. Throws before sending when the fault is invalid. */
  set(inboxId: string, fault: DeliveryFaultOptions, options?: RequestOptions): ApiPromise<DeliveryFault> {
    let body: DeliveryFaultRequest;
    try {
      body = checkDeliveryFault(fault);
    } catch (error) {
      return new ApiPromise(Promise.reject(error as Error));
    }
    return this.#call({ method: 'PUT', path: path`/inboxes/${inboxId}/delivery-fault`, body }, options, LooseFault);
  }

  /** The delivery fault in force for an inbox, or `null`. */
  get(inboxId: string, options?: RequestOptions): ApiPromise<DeliveryFault | null> {
    const promise = this.#call({ method: 'GET', path: path`/inboxes/${inboxId}/delivery-fault` }, options, LooseState);
    return new ApiPromise(promise.withResponse().then(({ data, response }) => ({ data: data.fault, response })));
  }

  /** Clears the delivery fault of an inbox: mail is accepted normally again. */
  clear(inboxId: string, options?: RequestOptions): ApiPromise<ClearedDeliveryFault> {
    return this.#call({ method: 'DELETE', path: path`/inboxes/${inboxId}/delivery-fault` }, options, LooseCleared);
  }
}
