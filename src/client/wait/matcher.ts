/**
 * {@link MessageMatcher}: decides, one message at a time, whether a message is
 * what a wait looks for, reading the whole message only when the criteria need it.
 *
 * @packageDocumentation
 */
import type { Message, MessageSummary } from '../../wire/schemas.ts';
import { ApiError } from '../core/errors.ts';
import { bodyMismatches, needsFullMessage, summaryMismatches } from '../internal/criteria.ts';
import type { MessageCriteria } from '../message/criteria.ts';
import type { ReceivedMessage } from '../message/received.ts';
import type { WaitSource } from './source.ts';
import type { WaitState } from './state.ts';

/** What the matcher made of one message. @internal */
type Judgement =
  | { kind: 'skip' }
  | { kind: 'mismatch'; failed: string[] }
  | { kind: 'match'; message: ReceivedMessage };

/**
 * Judges messages against one wait's criteria: summary fields first, then (when
 * needed) the whole message, read once per handle and remembered.
 * @internal
 */
export class MessageMatcher {
  readonly #criteria: MessageCriteria;
  readonly #source: WaitSource;
  readonly #state: WaitState;
  readonly #skipReturned: boolean;
  readonly #pushed: (id: string) => Message | undefined;

  /**
   * `skipReturned`: messages an earlier wait of the handle returned are skipped (not for `peek`).
   * `pushed`: the whole messages the stream sent, which need no read.
   */
  constructor(criteria: MessageCriteria, source: WaitSource, state: WaitState, skipReturned: boolean, pushed: (id: string) => Message | undefined = () => undefined) {
    this.#criteria = criteria;
    this.#source = source;
    this.#state = state;
    this.#skipReturned = skipReturned;
    this.#pushed = pushed;
  }

  /** Judges one message; throws what reading it threw (except a 404: the message was deleted). */
  async judge(summary: MessageSummary, signal: AbortSignal): Promise<Judgement> {
    if (this.#skipReturned && this.#state.returned(summary.id)) return { kind: 'skip' };
    const early = summaryMismatches(this.#criteria, summary);
    if (early.length > 0) return { kind: 'mismatch', failed: early };
    const message = await this.#read(summary, signal);
    if (message === null) return { kind: 'mismatch', failed: ['it was deleted before it could be read'] };
    if (needsFullMessage(this.#criteria)) {
      const late = bodyMismatches(this.#criteria, message);
      if (late.length > 0) return { kind: 'mismatch', failed: late };
      if (this.#criteria.where !== undefined && !(await this.#criteria.where(message))) {
        return { kind: 'mismatch', failed: ['the predicate returned false'] };
      }
    }
    return { kind: 'match', message };
  }

  /** The whole message, from the handle's memory, the stream, or the API; `null` when it is gone. */
  async #read(summary: MessageSummary, signal: AbortSignal): Promise<ReceivedMessage | null> {
    const known = this.#state.cached(summary.id);
    if (known !== undefined) return known;
    try {
      const message = this.#source.wrap(this.#pushed(summary.id) ?? (await this.#source.message(summary.id, { signal })));
      this.#state.remember(message);
      return message;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }
}
