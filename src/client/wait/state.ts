/**
 * {@link WaitState}: what the waits of one inbox handle remember between calls.
 *
 * @packageDocumentation
 */
import type { ReceivedMessage } from '../message/received.ts';

/**
 * What the waits of one inbox handle remember: which messages they returned
 * (each is returned once per handle) and the whole messages they read.
 * @internal
 */
export class WaitState {
  readonly #returned = new Set<string>();
  readonly #returnedSeqs = new Set<number>();
  readonly #fetched = new Map<string, ReceivedMessage>();
  #after = 0;

  /** The seq boundary of this handle: every message with a `seq` up to it was returned by a wait (the next wait starts after it). */
  get after(): number {
    return this.#after;
  }

  /** How many messages the waits of this handle returned. */
  get returnedCount(): number {
    return this.#returned.size;
  }

  /** Whether a wait of this handle already returned the message. */
  returned(id: string): boolean {
    return this.#returned.has(id);
  }

  /** Marks a message as returned; false when another wait got it first. */
  claim(message: ReceivedMessage): boolean {
    if (this.#returned.has(message.id)) return false;
    this.#returned.add(message.id);
    this.#returnedSeqs.add(message.seq);
    while (this.#returnedSeqs.has(this.#after + 1)) this.#after++;
    return true;
  }

  /** A whole message read before. */
  cached(id: string): ReceivedMessage | undefined {
    return this.#fetched.get(id);
  }

  /** Remembers a whole message. */
  remember(message: ReceivedMessage): void {
    this.#fetched.set(message.id, message);
  }

  /** The whole messages read so far, in arrival order. */
  all(): ReceivedMessage[] {
    return [...this.#fetched.values()].sort((a, b) => a.seq - b.seq);
  }
}
