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

/** `cursor` and `limit` of a list: `limit` 1 to 100, default 20. */
export const PageQuerySchema = z.object({
  cursor: z.string().min(1).optional().meta({ description: 'The `nextCursor` of the previous page; omit for the first page' }),
  limit: z.coerce.number().int().min(1).max(100).default(DEFAULT_PAGE_LIMIT).meta({ description: 'Items per page, 1 to 100', example: DEFAULT_PAGE_LIMIT }),
});
