/**
 * The spam check (`POST /messages/{id}/spam-check`, an inboxkit extension):
 * the score a real spam filter running beside the local service gives a
 * message, and the errors that say how to get one when there is none.
 *
 * @packageDocumentation
 */
import { SpamCheckSchema } from '../wire/spam-check.ts';
import type { SpamCheck } from '../wire/spam-check.ts';
import { ApiPromise } from './core/api-promise.ts';
import { ApiError, InboxkitError } from './core/errors.ts';
import { path } from './internal/path.ts';
import type { Transport } from './internal/transport.ts';
import type { RequestOptions } from './core/types.ts';

/** How to get a scanner, in every error that lacks one. */
const SETUP =
  'Install SpamAssassin (Debian/Ubuntu: apt-get install spamd; macOS: brew install spamassassin), run `spamd --listen 127.0.0.1:783 -L` (offline rules), ' +
  "and start the service with it: `inboxkit serve --spam-check spamd://127.0.0.1:783`, or inboxkitServer({ spamCheck: 'spamd://127.0.0.1:783' }) in playwright.config. See docs/email-checks.md.";

/**
 * A spam check could not be made: the service has no scanner configured
 * (`not_configured`), does not offer spam checks at all (`unsupported`: a
 * hosted service or an older inboxkit), or its scanner is down or too slow (`failed`).
 */
export class SpamCheckUnavailableError extends InboxkitError {
  override name = 'SpamCheckUnavailableError';
  /** Why. */
  readonly reason: 'not_configured' | 'unsupported' | 'failed';
  constructor(reason: 'not_configured' | 'unsupported' | 'failed', message: string, cause: unknown) {
    super(message, { cause });
    this.reason = reason;
  }
}

const LooseSpamCheck = SpamCheckSchema.loose();

/** Asks the service to score a message with its spam scanner. */
export function requestSpamCheck(transport: Transport, messageId: string, options?: RequestOptions): ApiPromise<SpamCheck> {
  return new ApiPromise(
    (async () => {
      try {
        const answer = await transport.buffered({ method: 'POST', path: path`/messages/${messageId}/spam-check` }, options);
        return { data: transport.data(answer, LooseSpamCheck), response: answer.info };
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        const where = transport.config.apiRoot;
        if (error.code === 'spam_check_unavailable') {
          throw new SpamCheckUnavailableError('not_configured', `spamCheck: the inbox service at ${where} has no spam scanner configured (--spam-check). ${SETUP}`, error);
        }
        if (error.status === 405 || (error.status === 404 && error.code !== 'message_not_found')) {
          throw new SpamCheckUnavailableError('unsupported', `spamCheck: the inbox service at ${where} does not offer spam checks (answered ${error.status}); they are an extension of inboxkit's local service. ${SETUP}`, error);
        }
        if (error.status === 502 || error.code === 'spam_check_failed') {
          throw new SpamCheckUnavailableError('failed', `spamCheck: ${error.message}`, error);
        }
        throw error;
      }
    })(),
  );
}
