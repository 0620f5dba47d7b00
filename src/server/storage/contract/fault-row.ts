/**
 * The row reader of the `delivery_faults` table, the same on both dialects.
 *
 * @packageDocumentation
 */
import { num, numberOrNull, rowMapper, text, textOrNull } from './rows.ts';
import type { DeliveryFaultRow } from './types.ts';

/** A `delivery_faults` row as a {@link DeliveryFaultRow}. */
export const toFault = rowMapper<DeliveryFaultRow>({
  inboxId: text,
  code: numberOrNull,
  enhancedStatus: textOrNull,
  message: textOrNull,
  remaining: numberOrNull,
  delayMs: num,
  createdAt: num,
});
