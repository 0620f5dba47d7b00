import type { ErrorCode } from '../../wire/schemas.ts';

/** HTTP status of each error code of the contract. */
export const STATUS_OF: Record<ErrorCode, 400 | 401 | 403 | 404 | 405 | 409 | 413 | 429 | 500 | 502 | 503> = {
  invalid_json: 400,
  validation_error: 400,
  invalid_grant: 400,
  forwarding_unavailable: 400,
  not_a_session: 400,
  unauthorized: 401,
  plan_required: 403,
  host_not_allowed: 403,
  inbox_not_found: 404,
  message_not_found: 404,
  attachment_not_found: 404,
  domain_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  address_taken: 409,
  payload_too_large: 413,
  rate_limited: 429,
  limit_reached: 429,
  internal_error: 500,
  service_unavailable: 503,
  spam_check_unavailable: 400,
  spam_check_failed: 502,
  authentication_unavailable: 400,
  authentication_failed: 400,
  recipient_opted_out: 403,
};

/**
 * An error the API answers with: thrown by handlers, turned into the JSON error
 * envelope `{ error: { code, message } }` with the status of its code.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.code = code;
    this.status = STATUS_OF[code];
    this.headers = headers;
  }
}
