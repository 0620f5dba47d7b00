/**
 * What every email provider adapter shares about its answers: a parse or a
 * step either gives what it was asked for or the provider's answer to send
 * back (`{ status, body }`), told apart by one guard.
 *
 * @packageDocumentation
 */

/** A provider's answer: an HTTP status and the body in the provider's shape. */
export interface ProviderAnswer {
  status: number;
  body: unknown;
}

/** Whether a step gave the provider's answer (to send back) rather than its result. */
export function isAnswer<V>(value: V): value is Extract<V, ProviderAnswer> {
  return typeof value === 'object' && value !== null && 'status' in value && 'body' in value;
}
