/**
 * Helpers to declare routes for the OpenAPI document: the error responses, the
 * security requirements and the success envelope, so every route says them the same way.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
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
  400: 'Invalid request: `invalid_json`, `validation_error` or a more specific code (`spam_check_unavailable`: the service has no spam scanner, see `--spam-check`)',
  401: 'Credential missing, unknown, expired or revoked (`unauthorized`)',
  403: 'The plan does not include this (`plan_required`), or the request\'s `Host` or `Origin` is not one this service answers (`host_not_allowed`, on a service bound to loopback)',
  404: 'No such resource, or not the caller\'s',
  409: 'Conflict (`address_taken`)',
  413: 'Request body over the limit (`payload_too_large`)',
  429: 'Over the rate limit (`rate_limited`), or over a cap of the service that the message names (`limit_reached`); see `Retry-After`',
  500: 'A fault of the server (`internal_error`), logged with the request id',
  502: 'The spam scanner could not be reached, did not answer within the timeout, or failed (`spam_check_failed`)',
  503: 'The database is unreachable right now (`service_unavailable`, PostgreSQL only); retry after `Retry-After`',
};

const counter = (description: string) => z.int().min(0).meta({ description });

/**
 * The headers every response carries (errors, the stream and downloads
 * included), as the document's response headers. With rate limiting off the
 * three counters are all `0`.
 */
export const COMMON_HEADERS = z.object({
  'X-RateLimit-Limit': counter('Requests allowed per window for this credential (or client address); `0` when rate limiting is off'),
  'X-RateLimit-Remaining': counter('Requests left in the current window; `0` when rate limiting is off'),
  'X-RateLimit-Reset': counter('Seconds until the window resets (at least 1 while a limit applies); `0` when rate limiting is off'),
  'X-Request-Id': z.string().meta({ description: 'The id of this request, also in error bodies as `error.requestId`; quote it when reporting a fault' }),
  'X-Content-Type-Options': z.literal('nosniff').meta({ description: 'Always `nosniff`: no body is ever sniffed as another type (a JSON error is never read as HTML)' }),
});

/** The headers of a 429: the common ones and `Retry-After`. */
const RATE_LIMITED_HEADERS = COMMON_HEADERS.extend({
  'Retry-After': z.int().min(1).meta({ description: 'Seconds to wait before retrying (equals `X-RateLimit-Reset` for `rate_limited`; `1` for `limit_reached`)' }),
});

const UNAVAILABLE_HEADERS = COMMON_HEADERS.extend({
  'Retry-After': z.int().min(1).meta({ description: 'Seconds to wait before retrying while the database is unreachable' }),
});

/** Headers of a download (an attachment, or a raw message shown `inline`). */
export function downloadHeaders(disposition: 'attachment' | 'inline') {
  return COMMON_HEADERS.extend({
    'Content-Disposition': z
      .string()
      .regex(new RegExp(`^${disposition}; filename="[^"]*"; filename\\*=UTF-8''\\S*$`))
      .meta({ description: `\`${disposition}; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded name>\` (RFC 6266, RFC 8187)` }),
    'Content-Length': counter('Size of the body in bytes'),
  });
}

/** Error statuses a route can declare. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 502 | 503;

/** One declared error response. */
export interface ErrorResponse {
  description: string;
  headers: typeof COMMON_HEADERS;
  content: { 'application/json': { schema: typeof ErrorBodySchema } };
}

/** The declared error responses for the statuses `S`. */
export type ErrorResponses<S extends ErrorStatus> = { [K in S]: ErrorResponse };

/** A JSON response with the common headers. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, headers: COMMON_HEADERS, content: { 'application/json': { schema } } };
}

/** The 200 response `{ data: <schema> }`, with OpenAPI links to the operations its ids lead to. */
export function okResponse<T extends z.ZodType>(schema: T, description: string, links?: Record<string, LinkDoc>) {
  return { 200: { ...jsonContent(envelope(schema), description), ...(links ? { links } : {}) } };
}

/** An OpenAPI Link Object: the operation a response leads to and where its parameters come from. */
export interface LinkDoc {
  operationId: string;
  parameters: Record<string, string>;
  description: string;
}

/**
 * The error responses of a route: the given statuses plus 400, 401, 403, 429,
 * 500 and 503, which any route can answer (two credentials in one request are a
 * 400; an invalid credential is refused everywhere; a `Host` the service does
 * not answer is a 403; a database that cannot be reached fails any of them).
 */
export function errorResponses<S extends ErrorStatus[]>(...statuses: S): ErrorResponses<S[number] | 400 | 401 | 403 | 429 | 500 | 503> {
  const all = [...new Set<ErrorStatus>([...statuses, 400, 401, 403, 429, 500, 503])].sort((a, b) => a - b);
  const out: Partial<Record<ErrorStatus, ErrorResponse>> = {};
  for (const status of all) {
    const headers = status === 429 ? RATE_LIMITED_HEADERS : status === 503 ? UNAVAILABLE_HEADERS : null;
    out[status] = { ...jsonContent(ErrorBodySchema, DESCRIPTIONS[status] ?? 'Error'), ...(headers ? { headers } : {}) };
  }
  return out as ErrorResponses<S[number] | 400 | 401 | 403 | 429 | 500 | 503>;
}

/**
 * Answers that belong to no operation, registered as `components.responses`:
 * what any path answers for a method it does not serve, for an unknown path,
 * and for a request the HTTP server refuses before routing.
 */
export const SHARED_RESPONSES = {
  MethodNotAllowed: {
    description: '405 `method_not_allowed`: the path exists but not with this method; `Allow` lists the methods it serves',
    allow: 'The methods the path serves',
  },
  NotFound: {
    description: '404 `not_found`: no such path (the API lives under /api/v1)',

  },
  RequestRefused: {
    description:
      '400 `validation_error` (431 for a request line and headers over 16 KB): refused before routing — no `Host` in HTTP/1.1, an invalid `Host`, a backslash in the path, `OPTIONS *`, ' +
      'a bad absolute-form target, an unknown method, raw non-ASCII bytes in the path, malformed HTTP. The request counts against the client address\'s allowance.',

  },
} as const;

/** A required JSON request body. */
export function jsonBody<T extends z.ZodType>(schema: T, description = 'JSON body') {
  return { body: { required: true, description, content: { 'application/json': { schema } } } };
}
