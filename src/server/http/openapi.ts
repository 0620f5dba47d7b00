/**
 * Helpers to declare routes for the OpenAPI document: the error responses, the
 * security requirements and the success envelope, so every route says them the same way.
 *
 * @packageDocumentation
 */
import type { z } from 'zod';
import { ErrorBodySchema, envelope } from '../../wire/schemas.ts';

/** Security scheme names registered in the document. */
export const BEARER_SCHEME = 'bearerAuth';
/** Security scheme name of the inbox token header. */
export const INBOX_TOKEN_SCHEME = 'inboxToken';

/** Security requirements of routes. */
export const security = {
  /** No credential needed; a credential that is sent must be valid. */
  optional: [{}, { [BEARER_SCHEME]: [] }, { [INBOX_TOKEN_SCHEME]: [] }],
  /** An API key, session token or inbox token. */
  required: [{ [BEARER_SCHEME]: [] }, { [INBOX_TOKEN_SCHEME]: [] }],
  /** An API key or session token (a user). */
  user: [{ [BEARER_SCHEME]: [] }],
} as const satisfies Record<string, Array<Record<string, string[]>>>;

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request: `invalid_json`, `validation_error` or a more specific code',
  401: 'Credential missing, unknown, expired or revoked (`unauthorized`)',
  403: 'The plan does not include this (`plan_required`)',
  404: 'No such resource, or not the caller\'s',
  409: 'Conflict (`address_taken`)',
  413: 'Request body over the limit (`payload_too_large`)',
  429: 'Over the rate limit (`rate_limited`); see `Retry-After`',
  500: 'A fault of the server (`internal_error`), logged with the request id',
  503: 'The database is unreachable right now (`service_unavailable`, PostgreSQL only); retry after `Retry-After`',
};

/** Error statuses a route can declare. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 503;

/** One declared error response. */
export interface ErrorResponse {
  description: string;
  content: { 'application/json': { schema: typeof ErrorBodySchema } };
}

/** The declared error responses for the statuses `S`. */
export type ErrorResponses<S extends ErrorStatus> = { [K in S]: ErrorResponse };

/** A JSON content entry for a response or body. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { 'application/json': { schema } } };
}

/** The 200 response `{ data: <schema> }`. */
export function okResponse<T extends z.ZodType>(schema: T, description: string) {
  return { 200: jsonContent(envelope(schema), description) };
}

/**
 * The error responses of a route: the given statuses plus 401, 429, 500 and 503,
 * which any route can answer (an invalid credential is refused everywhere; a
 * database that cannot be reached fails any of them).
 */
export function errorResponses<S extends ErrorStatus[]>(...statuses: S): ErrorResponses<S[number] | 401 | 429 | 500 | 503> {
  const all = [...new Set<ErrorStatus>([...statuses, 401, 429, 500, 503])].sort((a, b) => a - b);
  const out: Partial<Record<ErrorStatus, ErrorResponse>> = {};
  for (const status of all) out[status] = jsonContent(ErrorBodySchema, DESCRIPTIONS[status] ?? 'Error');
  return out as ErrorResponses<S[number] | 401 | 429 | 500 | 503>;
}

/** A required JSON request body. */
export function jsonBody<T extends z.ZodType>(schema: T, description = 'JSON body') {
  return { body: { required: true, description, content: { 'application/json': { schema } } } };
}
