/**
 * {@link runWait}: one wait, put together from its parts: the {@link MessageFeed}
 * brings the inbox's messages in arrival order, the {@link MessageMatcher}
 * judges them one at a time, and {@link explainTimeout} says what happened
 * when the time runs out.
 *
 * @packageDocumentation
 */
import type { Message, MessageSummary } from '../../wire/schemas.ts';
import { AbortError, InboxkitError } from '../core/errors.ts';
import { describeCriteria, toCriteria } from '../internal/criteria.ts';
import type { MessageCriteria } from '../message/criteria.ts';
import { formatAddress } from '../internal/format.ts';
import type { ReceivedMessage } from '../message/received.ts';
import type { InboxAccessRevokedEvent, InboxGoneEvent } from '../stream/stream.ts';
import { UnexpectedMessageError, WaitTimeoutError } from './errors.ts';
import type { WaitMismatch } from './errors.ts';
import { explainTimeout, newestMismatches } from './explain.ts';
import { MessageFeed, readyTimeoutFor } from './feed.ts';
import { MessageMatcher } from './matcher.ts';
import type { WaitSource } from './source.ts';
import type { WaitSpec } from './spec.ts';
import type { WaitState } from './state.ts';

/** Why a wait ends when its stream ends for good: the inbox went, or access to it did. */
function endedWhy(address: string, event: InboxGoneEvent | InboxAccessRevokedEvent): string {
  if (event.type === 'access.revoked') {
    return `access to inbox ${address} was revoked while waiting (${event.reason}): the credential no longer opens it; sign in again or use a credential that does.`;
  }
  return `inbox ${address} was ${event.type === 'inbox.expired' ? 'expired' : 'deleted'} while waiting.`;
}

/** How a wait's promise is settled. */
interface Settle {
  resolve(value: ReceivedMessage[]): void;
  reject(error: unknown): void;
}

/** One running wait: its feed, its matcher, and how it settles. */
class WaitRun {
  readonly #source: WaitSource;
  readonly #state: WaitState;
  readonly #spec: WaitSpec;
  readonly #description: string;
  readonly #matcher: MessageMatcher;
  readonly #feed: MessageFeed;
  /** Everything this wait started ends with it. */
  readonly #stop = new AbortController();
  /** The feed alone (ended first by `absent` and `peek` at their deadline). */
  readonly #feedStop = new AbortController();
  readonly #started: number;
  readonly #matched: ReceivedMessage[] = [];
  readonly #rejected: WaitMismatch[] = [];
  readonly #queue: MessageSummary[] = [];
  /** Whole messages the stream pushed, by id, until the matcher takes them. */
  readonly #pushed = new Map<string, Message>();
  readonly #settle: Settle;
  #settled = false;
  #pumping: Promise<void> | null = null;
  #deadline: unknown;

  constructor(source: WaitSource, state: WaitState, spec: WaitSpec, criteria: { normalized: MessageCriteria; description: string }, settle: Settle) {
    this.#source = source;
    this.#state = state;
    this.#spec = spec;
    this.#settle = settle;
    this.#started = source.clock.now();
    this.#description = criteria.description;
    this.#matcher = new MessageMatcher(criteria.normalized, source, state, spec.mode !== 'peek', (id) => this.#takePushed(id));
    const after = spec.mode === 'peek' ? 0 : state.after;
    this.#feed = new MessageFeed(source, { since: spec.since, after, readyTimeoutMs: readyTimeoutFor(spec.timeout), pollIntervals: spec.pollIntervals }, {
      deliver: (summaries) => this.#deliver(summaries),
      pushedWhole: (message) => void this.#pushed.set(message.id, message),
      ended: (event) => this.#fail(new InboxkitError(`${spec.call}(${this.#description}): ${endedWhy(source.address, event)}`)),
      fatal: (error) => this.#fail(error),
    });
  }

  start(): void {
    this.#spec.signal?.addEventListener('abort', this.#onAbort, { once: true });
    const { timeout, mode } = this.#spec;
    if ((timeout > 0 || mode === 'peek') && Number.isFinite(timeout)) {
      this.#deadline = this.#source.clock.setTimeout(() => void this.#onDeadline().catch((error: unknown) => this.#fail(error)), timeout);
    }
    // A peek without a window only looks at the list once (at its deadline, now): no stream.
    if (mode === 'peek' && timeout === 0) return;
    this.#feed.start(AbortSignal.any([this.#stop.signal, this.#feedStop.signal]));
  }

  #onAbort = (): void => {
    this.#fail(new AbortError(`${this.#spec.call}(${this.#description}) at ${this.#source.address} was aborted by the caller's AbortSignal.`, { cause: this.#spec.signal?.reason }));
  };

  #finish(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.#source.clock.clearTimeout(this.#deadline);
    this.#spec.signal?.removeEventListener('abort', this.#onAbort);
    this.#stop.abort();
    return true;
  }

  #succeed(value: ReceivedMessage[]): void {
    if (this.#finish()) this.#settle.resolve(value);
  }

  #fail(error: unknown): void {
    if (this.#finish()) this.#settle.reject(error);
  }

  #takePushed(id: string): Message | undefined {
    const message = this.#pushed.get(id);
    this.#pushed.delete(id);
    return message;
  }

  #deliver(summaries: MessageSummary[]): void {
    this.#queue.push(...summaries);
    if (this.#queue.length > 0) void this.#pump();
  }

  /** Works through the queue in arrival order; the promise settles once it is empty. */
  #pump(): Promise<void> {
    if (this.#pumping !== null) return this.#pumping;
    let finished = false;
    const run = (async () => {
      try {
        while (this.#queue.length > 0 && !this.#settled) await this.#consider(this.#queue.shift() as MessageSummary);
      } catch (error) {
        if (!(this.#stop.signal.aborted && error instanceof Error && error.name === 'AbortError')) this.#fail(error);
      } finally {
        // Reset in the same turn as the loop's last check, so a delivery right after starts a new run.
        finished = true;
        this.#pumping = null;
      }
    })();
    if (!finished) this.#pumping = run;
    return run;
  }

  async #consider(summary: MessageSummary): Promise<void> {
    const startedAfter = this.#feed.startedAfter;
    if (startedAfter !== null && summary.seq <= startedAfter) {
      this.#pushed.delete(summary.id);
      return;
    }
    const judgement = await this.#matcher.judge(summary, this.#stop.signal);
    this.#pushed.delete(summary.id); // taken, or not needed (judged on its summary)
    if (judgement.kind === 'skip' || this.#settled) return;
    if (judgement.kind === 'mismatch') {
      this.#rejected.push({ message: summary, failed: judgement.failed });
      return;
    }
    const { message } = judgement;
    if (this.#spec.mode === 'absent') {
      this.#fail(this.#unexpected(summary, message));
    } else if (this.#spec.mode === 'peek') {
      this.#succeed([message]);
    } else if (this.#state.claim(message)) {
      // (A claim fails when another wait of this handle got the message first.)
      this.#matched.push(message);
      if (this.#matched.length >= this.#spec.count) this.#succeed(this.#matched);
    }
  }

  #unexpected(summary: MessageSummary, message: ReceivedMessage): UnexpectedMessageError {
    const { call, timeout } = this.#spec;
    return new UnexpectedMessageError(
      `${call}: expected no message matching ${this.#description} at ${this.#source.address} within ${timeout} ms, but ${JSON.stringify(message.subject)} from ${formatAddress(summary.from, '(no sender)')} arrived at ${message.receivedAt} (seq ${message.seq}, id ${message.id}).`,
      message,
      this.#description,
    );
  }

  async #onDeadline(): Promise<void> {
    if (this.#settled) return;
    if (this.#spec.mode === 'collect') {
      this.#fail(this.#timeoutError());
      return;
    }
    // `absent` and `peek`: one last look at the list catches what the stream had not pushed yet.
    this.#feedStop.abort();
    await this.#feed.finalLook(this.#stop.signal);
    await this.#pump();
    this.#succeed([]);
  }

  #timeoutError(): WaitTimeoutError {
    const { call, count, since, timeout } = this.#spec;
    const feed = this.#feed.report();
    const text = explainTimeout({
      call,
      description: this.#description,
      address: this.#source.address,
      timeout,
      elapsedMs: this.#source.clock.now() - this.#started,
      count,
      since,
      matchedSubjects: this.#matched.map((m) => m.subject),
      rejected: this.#rejected,
      startedAfter: this.#feed.startedAfter,
      returnedCount: this.#state.returnedCount,
      ...feed,
    });
    return new WaitTimeoutError(text, {
      criteria: this.#description,
      address: this.#source.address,
      timeout,
      received: this.#rejected.map((r) => r.message),
      mismatches: newestMismatches(this.#rejected),
      matched: [...this.#matched],
      wanted: count,
    });
  }
}

/**
 * Runs one wait. Resolves with the matches (`collect`), nothing (`absent`), or
 * the first match or nothing (`peek`).
 * @internal
 */
export function runWait(source: WaitSource, state: WaitState, spec: WaitSpec): Promise<ReceivedMessage[]> {
  // Once per wait: a bad match throws here, before anything starts.
  const description = describeCriteria(spec.match);
  const normalized = toCriteria(spec.match, spec.call);
  if (spec.signal?.aborted) {
    return Promise.reject(new AbortError(`${spec.call}(${description}) at ${source.address} was aborted by the caller's AbortSignal before it started.`, { cause: spec.signal.reason }));
  }
  return new Promise<ReceivedMessage[]>((resolve, reject) => new WaitRun(source, state, spec, { normalized, description }, { resolve, reject }).start());
}
