/**
 * The per-inbox delivery-fault table of one server: which inboxes refuse or
 * delay their next deliveries, and how many attempts are left. Set through the
 * API (`PUT /inboxes/{id}/delivery-fault`), read by the SMTP intake at
 * `RCPT TO`, cleared with the inbox.
 *
 * Faults live in memory: they are test set-up, not data, and the HTTP API and
 * the SMTP intake that share them run in one process.
 *
 * @packageDocumentation
 */
import type { DeliveryFaultRequest } from '../../wire/faults.ts';
import type { EventBus } from '../events/types.ts';
import { defaultEnhancedStatus, defaultFaultMessage } from './replies.ts';

/** A fault in force for one inbox. */
export interface DeliveryFaultRecord {
  inboxId: string;
  /** SMTP reply code of the refusal, or null for a delay only. */
  code: number | null;
  /** Enhanced status code of the refusal, or null for a delay only. */
  enhancedStatus: string | null;
  /** Reply text of the refusal, or null for a delay only. */
  message: string | null;
  /** Attempts still affected; null: every one until cleared. */
  remaining: number | null;
  /** Wait before the reply, in milliseconds. */
  delayMs: number;
  /** When it was set, epoch milliseconds. */
  createdAt: number;
}

/** What one delivery attempt to an inbox meets, as decided at `RCPT TO`. */
export interface FaultVerdict {
  /** Refuse the recipient with this reply (after `delayMs`), or accept it (`null`). */
  refusal: { code: number; text: string } | null;
  /** Wait before the refusal, or, when the recipient is accepted, before the 250 after DATA. */
  delayMs: number;
}

/** The fault table of a server. */
export interface DeliveryFaults {
  /** Sets (replaces) the fault of an inbox. */
  set(inboxId: string, request: DeliveryFaultRequest): DeliveryFaultRecord;
  /** The fault in force for an inbox, or null. */
  get(inboxId: string): DeliveryFaultRecord | null;
  /** Removes the fault of an inbox; whether there was one. */
  clear(inboxId: string): boolean;
  /** Counts one delivery attempt to the inbox against its fault: what the attempt meets, or null when nothing. */
  take(inboxId: string): FaultVerdict | null;
  /** Waits `ms` (a fault's delay); resolves at once once the table is closed. */
  delay(ms: number): Promise<void>;
  /** Clears every fault and ends every delay in progress, so the intake can close. */
  close(): void;
}

/** What {@link createDeliveryFaults} needs. */
export interface DeliveryFaultsDeps {
  /** The server's event bus: a fault is cleared when its inbox is deleted or expires. */
  bus: EventBus;
  /** The clock, in epoch milliseconds. */
  now(): number;
}

/**
 * Creates a server's delivery-fault table.
 *
 * @example
 * ```ts
 * const faults = createDeliveryFaults({ bus, now: Date.now });
 * faults.set(inbox.id, { code: 451, count: 2 });
 * faults.take(inbox.id); // { refusal: { code: 451, text: '4.3.0 …' }, delayMs: 0 }
 * ```
 */
export function createDeliveryFaults(deps: DeliveryFaultsDeps): DeliveryFaults {
  const faults = new Map<string, { record: DeliveryFaultRecord; unsubscribe: () => void }>();
  const closing = new AbortController();

  const clear = (inboxId: string): boolean => {
    const entry = faults.get(inboxId);
    if (!entry) return false;
    faults.delete(inboxId);
    entry.unsubscribe();
    return true;
  };

  return {
    set(inboxId, request) {
      clear(inboxId);
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
      const unsubscribe = deps.bus.subscribe(inboxId, (event) => {
        if (event.type === 'inbox.deleted' || event.type === 'inbox.expired') clear(inboxId);
      });
      faults.set(inboxId, { record, unsubscribe });
      return { ...record };
    },

    get(inboxId) {
      const entry = faults.get(inboxId);
      return entry ? { ...entry.record } : null;
    },

    clear,

    take(inboxId) {
      const entry = faults.get(inboxId);
      if (!entry) return null;
      const { record } = entry;
      if (record.remaining !== null) {
        record.remaining -= 1;
        if (record.remaining <= 0) clear(inboxId);
      }
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
      for (const inboxId of [...faults.keys()]) clear(inboxId);
      closing.abort();
    },
  };
}
