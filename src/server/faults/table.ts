/**
 * The per-inbox delivery faults of a service: which inboxes refuse or delay
 * their next deliveries, and how many attempts are left. Set through the API
 * (`PUT /inboxes/{id}/delivery-fault`), read by the SMTP intake at `RCPT TO`.
 *
 * Faults live in the store, so every node on one database applies the fault
 * set through any of them, and a fault goes with its inbox (deleted, or swept
 * once expired). Only the delays in progress are this process's own.
 *
 * @packageDocumentation
 */
import type { DeliveryFaultRequest } from '../../wire/faults.ts';
import type { DeliveryFaultRow, FaultStore } from '../storage/contract/types.ts';
import { defaultEnhancedStatus, defaultFaultMessage } from './replies.ts';

/** What the `greylist` kind stands for: the next attempt refused as a greylisting receiver refuses it, the later ones accepted. */
const GREYLIST = { code: 451, enhancedStatus: '4.7.1', message: 'Greylisted: this sender is not known yet, please retry later (inboxkit greylisting fault)', count: 1 } as const;

/** A fault in force for one inbox. */
export type DeliveryFaultRecord = DeliveryFaultRow;

/** What one delivery attempt to an inbox meets, as decided at `RCPT TO`. */
export interface FaultVerdict {
  /** Refuse the recipient with this reply (after `delayMs`), or accept it (`null`). */
  refusal: { code: number; text: string } | null;
  /** Wait before the refusal, or, when the recipient is accepted, before its copy is stored. */
  delayMs: number;
}

/** The fault table of a service. */
export interface DeliveryFaults {
  /** Sets (replaces) the fault of an inbox. */
  set(inboxId: string, request: DeliveryFaultRequest): Promise<DeliveryFaultRecord>;
  /** The fault in force for an inbox, or null. */
  get(inboxId: string): Promise<DeliveryFaultRecord | null>;
  /** Removes the fault of an inbox; whether there was one. */
  clear(inboxId: string): Promise<boolean>;
  /** Counts one delivery attempt to the inbox against its fault: what the attempt meets, or null when nothing. */
  take(inboxId: string): Promise<FaultVerdict | null>;
  /** Waits `ms` (a fault's delay); resolves at once once the table is closed. */
  delay(ms: number): Promise<void>;
  /** Ends every delay in progress, so the intake can close. */
  close(): void;
}

/** What {@link createDeliveryFaults} needs. */
export interface DeliveryFaultsDeps {
  /** Where faults are kept (the service's store). */
  store: FaultStore;
  /** The clock, in epoch milliseconds. */
  now(): number;
}

/**
 * Creates a service's delivery-fault table over its store.
 *
 * @example
 * ```ts
 * const faults = createDeliveryFaults({ store, now: Date.now });
 * await faults.set(inbox.id, { code: 451, count: 2 });
 * await faults.take(inbox.id); // { refusal: { code: 451, text: '4.3.0 …' }, delayMs: 0 }
 * ```
 */
export function createDeliveryFaults(deps: DeliveryFaultsDeps): DeliveryFaults {
  const closing = new AbortController();
  return {
    async set(inboxId, given) {
      const request = given.kind === 'greylist' ? { ...GREYLIST, ...given } : given;
      const code = request.code ?? null;
      const record: DeliveryFaultRecord = {
        inboxId,
        code,
        enhancedStatus: code === null ? null : (request.enhancedStatus ?? defaultEnhancedStatus(code)),
        message: code === null ? null : (request.message ?? defaultFaultMessage(code)),
        remaining: request.count ?? null,
        delayMs: request.delayMs ?? 0,
        createdAt: deps.now(),
      };
      await deps.store.putDeliveryFault(record);
      return { ...record };
    },

    get: (inboxId) => deps.store.findDeliveryFault(inboxId),

    clear: (inboxId) => deps.store.deleteDeliveryFault(inboxId),

    async take(inboxId) {
      const record = await deps.store.takeDeliveryFault(inboxId);
      if (!record) return null;
      const refusal = record.code === null ? null : { code: record.code, text: `${record.enhancedStatus} ${record.message}` };
      return { refusal, delayMs: record.delayMs };
    },

    delay(ms) {
      if (ms <= 0 || closing.signal.aborted) return Promise.resolve();
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          closing.signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        closing.signal.addEventListener('abort', done, { once: true });
      });
    },

    close() {
      closing.abort();
    },
  };
}
