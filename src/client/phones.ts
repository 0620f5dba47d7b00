/**
 * Phones (an inboxkit extension of the API): an inbox with a phone number,
 * whose SMS are messages read with the same waits as email.
 *
 * @packageDocumentation
 */
import type { CreatePhoneRequest, SentSms } from '../wire/phones.ts';
import { PHONE_COUNTRIES, SentSmsSchema } from '../wire/phones.ts';
import { ApiPromise } from './core/api-promise.ts';
import { ApiError, InboxkitError } from './core/errors.ts';
import type { RequestOptions } from './core/types.ts';
import type { InboxesResource } from './resources.ts';
import type { InboxHandle } from './inbox-handle.ts';
import { LooseInbox } from './internal/schemas.ts';
import type { Transport } from './internal/transport.ts';

/**
 * The server does not offer phones (it answered 404 or 405 to `POST /phones`,
 * or made an inbox without a number): a hosted service, or an older inboxkit.
 */
export class PhonesUnsupportedError extends InboxkitError {
  override name = 'PhonesUnsupportedError';
  /** The HTTP status of the refusal (404 or 405), or 200 when the answer had no phone number. */
  readonly status: number;
  constructor(apiUrl: string, status: number, cause?: unknown) {
    super(
      `This server does not support phones: ${apiUrl} answered ${status} to POST /phones${status === 200 ? ' without a phoneNumber' : ''}. ` +
        'Phones are an inboxkit extension offered by the local service (`inboxkit serve`, `inboxkitServer()` in playwright.config); run the test against it, or skip the test on this server.',
      { cause },
    );
    this.status = status;
  }
}

/** What `phones.create()` accepts. */
export type CreatePhoneOptions = CreatePhoneRequest;

/** `POST /phones`: inboxes with a phone number (an inboxkit extension). */
export class PhonesResource {
  readonly #transport: Transport;
  readonly #inboxes: InboxesResource;
  /** Used by the client. */
  constructor(transport: Transport, inboxes: InboxesResource) {
    this.#transport = transport;
    this.#inboxes = inboxes;
  }

  /**
   * Texts a phone through the plain intake (`POST /sms`): the SMS is the
   * phone's next message, as if an app had sent it.
   */
  text(to: string, text: string, from = 'inboxkit', options?: RequestOptions): ApiPromise<SentSms> {
    const t = this.#transport;
    return new ApiPromise(
      (async () => {
        try {
          const answer = await t.buffered({ method: 'POST', path: '/sms', body: { to, from, text } }, options);
          return { data: t.data(answer, SentSmsSchema.loose()), response: answer.info };
        } catch (error) {
          if (error instanceof ApiError && (error.status === 405 || (error.status === 404 && error.code !== 'inbox_not_found'))) {
            throw new PhonesUnsupportedError(t.config.apiRoot, error.status, error);
          }
          throw error;
        }
      })(),
    );
  }

  /**
   * Creates a phone: an inbox whose `phoneNumber` (E.164, from a range kept
   * for fiction) receives SMS. Its handle waits for SMS as for email.
   *
   * @example
   * ```ts
   * const phone = await client.phones.create({ country: 'FR' });
   * // … make the app text phone.phoneNumber …
   * const sms = await phone.waitForMessage();
   * console.log(sms.otp());
   * ```
   */
  create(params: CreatePhoneOptions = {}, options?: RequestOptions): ApiPromise<InboxHandle> {
    if (params.country !== undefined && !(PHONE_COUNTRIES as readonly string[]).includes(params.country)) {
      return new ApiPromise(Promise.reject(new InboxkitError(`phones.create: country ${JSON.stringify(params.country)} is not offered; use one of ${PHONE_COUNTRIES.join(', ')}.`)));
    }
    const t = this.#transport;
    return new ApiPromise(
      (async () => {
        try {
          const answer = await t.buffered({ method: 'POST', path: '/phones', body: params }, options);
          const data = t.data(answer, LooseInbox);
          if (typeof data.phoneNumber !== 'string') throw new PhonesUnsupportedError(t.config.apiRoot, 200);
          const { token, ...inbox } = data;
          return { data: this.#inboxes.fromData(inbox, token ?? null), response: answer.info };
        } catch (error) {
          if (error instanceof ApiError && (error.status === 405 || (error.status === 404 && error.code !== 'inbox_not_found'))) {
            throw new PhonesUnsupportedError(t.config.apiRoot, error.status, error);
          }
          throw error;
        }
      })(),
    );
  }
}
