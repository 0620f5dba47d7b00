/**
 * The one storage failure callers treat apart from the others: the backend
 * cannot be reached right now (a database server down or restarting, a lost
 * connection). The HTTP API answers 503 `service_unavailable`, the SMTP intake
 * 451 4.3.0, so clients and senders retry.
 *
 * @packageDocumentation
 */

/**
 * The store's backend is unreachable for now; the same call may succeed later.
 * `cause` holds the driver's error.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
