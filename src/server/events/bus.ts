import type { EventBus, BusEvent } from './types.ts';

/** Options of {@link createEventBus}. */
export interface EventBusOptions {
  /**
   * Called when a listener throws. The bus itself never lets a listener's
   * failure reach the publisher or the other listeners.
   * @defaultValue ignore the error
   */
  onListenerError?: (error: unknown, event: BusEvent) => void;
}

/**
 * Creates an in-process event bus: one instance per server, no globals.
 *
 * `publish` hands the event to every current subscriber of its inbox
 * synchronously and returns; a listener that throws is reported through
 * `onListenerError` and skipped. Listeners must not do slow work inline (the
 * stream queues events and writes them asynchronously), so a slow subscriber
 * never delays SMTP intake or other subscribers.
 *
 * @example
 * ```ts
 * const bus = createEventBus();
 * const off = bus.subscribe(inboxId, (event) => console.log(event.type));
 * bus.publish({ type: 'inbox.deleted', inboxId });
 * off();
 * ```
 */
export function createEventBus(options: EventBusOptions = {}): EventBus {
  const listeners = new Map<string, Set<(event: BusEvent) => void>>();
  const everyInbox = new Set<(event: BusEvent) => void>();
  const onListenerError = options.onListenerError ?? (() => {});

  return {
    publish(event) {
      // An event of no inbox (a user's revocation) is for the caller-wide listeners alone.
      const set = event.inboxId === null ? undefined : listeners.get(event.inboxId);
      if (!set && everyInbox.size === 0) return;
      // A copy, so that a listener unsubscribing (or subscribing) during
      // delivery neither skips nor repeats anyone.
      for (const listener of [...(set ?? []), ...everyInbox]) {
        try {
          listener(event);
        } catch (error) {
          try {
            onListenerError(error, event);
          } catch {}
        }
      }
    },
    subscribeAll(listener) {
      const entry = (event: BusEvent) => listener(event);
      everyInbox.add(entry);
      return () => {
        everyInbox.delete(entry);
      };
    },
    subscribe(inboxId, listener) {
      let set = listeners.get(inboxId);
      if (!set) {
        set = new Set();
        listeners.set(inboxId, set);
      }
      // Wrapped so the same function can subscribe twice and unsubscribe each once.
      const entry = (event: BusEvent) => listener(event);
      set.add(entry);
      let active = true;
      return () => {
        if (!active) return;
        active = false;
        const current = listeners.get(inboxId);
        if (!current) return;
        current.delete(entry);
        if (current.size === 0) listeners.delete(inboxId);
      };
    },
  };
}
