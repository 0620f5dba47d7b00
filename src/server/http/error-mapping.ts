/**
 * The JSON error envelope `{ error: { code, message, requestId } }` for every
 * failure: what each thrown error, an unknown path and a method a path does
 * not serve answer.
 *
 * @packageDocumentation
 */
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';
import type { ErrorCode } from '../../wire/schemas.ts';
import { InvalidCursorError } from '../storage/contract/cursor.ts';
import { StoreUnavailableError } from '../storage/contract/errors.ts';
import { HttpError, STATUS_OF } from './errors.ts';
import { requestIdOf } from './request-id.ts';

/** The error envelope of `code`, with the request's id when it has one. */
export function errorResponse(c: Context, code: ErrorCode, message: string, headers: Record<string, string> = {}): Response {
  const requestId = requestIdOf(c);
  return c.json({ error: { code, message, ...(requestId ? { requestId } : {}) } }, STATUS_OF[code], headers);
}

/** The 405 `method_not_allowed` answer (hono's `methodNotAllowed` calls it), with `Allow`. */
export function methodNotAllowedAnswer(c: Context, methods: string[]): Response {
  return errorResponse(c, 'method_not_allowed', `${c.req.method} is not allowed on ${c.req.path}; use ${methods.join(', ')}.`, { Allow: methods.join(', ') });
}

/** The 404 `not_found` answer of a path no route serves, pointing at the API and its document. */
export function notFoundAnswer(apiPrefix: string): NotFoundHandler {
  return (c) => errorResponse(c, 'not_found', `No route ${c.req.method} ${c.req.path}. The API lives under ${apiPrefix}; see ${apiPrefix}/openapi.json.`);
}

/** Options of {@link mapErrors}. */
export interface ErrorMappingOptions {
  /** Where a failure of the database (warn) or of the server (error) is logged. */
  logger: Pick<Logger, 'warn' | 'error'>;
  /** The body limit, named in a 413. */
  maxRequestBytes: number;
}

/** The answer of a Hono HTTPException below 500, or null for one the service does not map. */
function httpExceptionAnswer(c: Context, error: HTTPException, maxRequestBytes: number): Response | null {
  if (error.status === 400 && /json/i.test(error.message)) {
    return errorResponse(c, 'invalid_json', 'The request body is not valid JSON. Send a JSON object with Content-Type: application/json.');
  }
  if (error.status === 415) return errorResponse(c, 'invalid_json', 'The request body must be JSON: send it with Content-Type: application/json.');
  if (error.status === 413) return errorResponse(c, 'payload_too_large', `The request body is over the limit of ${maxRequestBytes} bytes.`);
  if (error.status < 500) return errorResponse(c, 'validation_error', error.message || 'The request is invalid.');
  return null;
}

/**
 * The app's error handler: an `HttpError` answers its own code, a bad cursor
 * or a refused body a 4xx, an unreachable database 503 with `Retry-After`, and
 * anything else 500 `internal_error`, logged with the request id.
 */
export function mapErrors(options: ErrorMappingOptions): ErrorHandler {
  const { logger, maxRequestBytes } = options;
  return (error, c) => {
    if (error instanceof HttpError) return errorResponse(c, error.code, error.message, error.headers);
    if (error instanceof InvalidCursorError) return errorResponse(c, 'validation_error', error.message);
    if (error instanceof HTTPException) {
      const answer = httpExceptionAnswer(c, error, maxRequestBytes);
      if (answer) return answer;
    }
    const where = { err: error, requestId: requestIdOf(c), method: c.req.method, path: c.req.path };
    if (error instanceof StoreUnavailableError) {
      logger.warn(where, 'request failed: database unreachable');
      return errorResponse(c, 'service_unavailable', 'The database of this service is unreachable right now; retry in a few seconds.', { 'Retry-After': '2' });
    }
    logger.error(where, 'request failed');
    return errorResponse(c, 'internal_error', `The server failed to handle this request; it is logged with request id ${requestIdOf(c)}.`);
  };
}
