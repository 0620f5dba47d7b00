/**
 * Request schemas every resource shares: the path id of a resource and the
 * page query of a list, so each is declared (and defaulted) once.
 *
 * @packageDocumentation
 */
import { z } from '@hono/zod-openapi';

/** Items per page when a list request gives no `limit` (the contract's default). */
const DEFAULT_PAGE_LIMIT = 20;

/**
 * A path parameter that names a resource by id.
 *
 * @param name - The parameter's name in the path (`id`, `attachmentId`).
 * @param description - What it names, for the OpenAPI document.
 */
export function idParam(name: string, description: string, example?: string) {
  return z.string().min(1).meta({ param: { name, in: 'path' }, description, ...(example ? { example } : {}) });
}

/** `{id}` of an inbox. */
export const InboxIdParams = z.object({ id: idParam('id', 'The inbox id', 'ibx_5f0c9a1e2b3d4c5e6f708192') });

/** `{id}` of a message. */
export const MessageIdParams = z.object({ id: idParam('id', 'The message id') });

/**
 * A query value as an integer when it is decimal digits and nothing else;
 * anything else (`0x10`, `1e1`, `+5`, `"10 "`) stays a string, which the
 * number schema then refuses.
 */
function strictInteger(value: unknown): unknown {
  return typeof value === 'string' && /^[0-9]{1,6}$/.test(value) ? Number(value) : value;
}

/** `cursor` and `limit` of a list: `limit` 1 to 100, default 20. */
export const PageQuerySchema = z.object({
  cursor: z.string().min(1).optional().meta({ description: 'The `nextCursor` of the previous page; omit for the first page' }),
  limit: z
    .preprocess(strictInteger, z.number().int().min(1).max(100))
    .default(DEFAULT_PAGE_LIMIT)
    .meta({ description: 'Items per page, 1 to 100, written in decimal digits only (no sign, exponent, hex or spaces)', example: DEFAULT_PAGE_LIMIT }),
});
