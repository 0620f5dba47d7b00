/**
 * How the resources make their calls: one buffered call mapped to a result,
 * the list calls' pages, and the file name of a download.
 */
import type { z } from 'zod';
import { ApiPromise } from '../core/api-promise.ts';
import { ResponseValidationError } from '../core/errors.ts';
import { PagePromise } from '../core/pagination.ts';
import type { PageFetcher } from '../core/pagination.ts';
import type { ListParams, RequestOptions, WithResponse } from '../core/types.ts';
import { excerpt, isRecord } from './transport.ts';
import type { BufferedAnswer, CallSpec, Transport } from './transport.ts';

type Schema = z.ZodType;

function split<P extends object>(options: (P & RequestOptions) | undefined, keys: (keyof P)[]): [Partial<P>, RequestOptions] {
  const params: Partial<P> = {};
  const rest: Record<string, unknown> = { ...(options ?? {}) };
  for (const key of keys) {
    if (key in rest) {
      (params as Record<string, unknown>)[key as string] = rest[key as string];
      delete rest[key as string];
    }
  }
  return [params, rest as RequestOptions];
}

export function call<S extends Schema>(transport: Transport, spec: CallSpec, options: RequestOptions | undefined, schema: S): ApiPromise<z.output<S>> {
  return callMap(transport, spec, options, (answer) => transport.data(answer, schema));
}

export function callMap<R>(transport: Transport, spec: CallSpec, options: RequestOptions | undefined, map: (answer: BufferedAnswer) => R): ApiPromise<R> {
  return new ApiPromise(
    (async (): Promise<WithResponse<R>> => {
      const answer = await transport.buffered(spec, options);
      return { data: map(answer), response: answer.info };
    })(),
  );
}

/**
 * Like {@link call}, but an empty 2xx body (a hosted service answering a DELETE with 204)
 * stands for `fallback`.
 */
export function callOrEmpty<S extends Schema>(transport: Transport, spec: CallSpec, options: RequestOptions | undefined, schema: S, fallback: z.output<S>): ApiPromise<z.output<S>> {
  return callMap(transport, spec, options, (answer) => (answer.body.byteLength === 0 ? fallback : transport.data(answer, schema)));
}

export function rejected<T>(error: Error): ApiPromise<T> {
  const promise = Promise.reject(error);
  return new ApiPromise<T>(promise);
}

/** Reads `items` and `nextCursor` from `{ data: { items, nextCursor } }`, `{ data: [...], nextCursor }` and the like. */
export function readPage(envelope: Record<string, unknown> & { data: unknown }): { items: unknown; nextCursor: unknown } | null {
  const { data } = envelope;
  const meta = isRecord(envelope.meta) ? envelope.meta : {};
  const outer = envelope.nextCursor ?? envelope.next_cursor ?? meta.nextCursor ?? meta.next_cursor;
  if (Array.isArray(data)) return { items: data, nextCursor: outer };
  if (isRecord(data) && Array.isArray(data.items)) return { items: data.items, nextCursor: data.nextCursor ?? data.next_cursor ?? outer };
  return null;
}

/** Normalises a next cursor: a non-empty string, or `null` for the last page. */
export function normaliseCursor(value: unknown): string | null | undefined {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function pageFetcher<T>(
  transport: Transport,
  listPath: string,
  params: ListParams,
  options: RequestOptions,
  parseItems: (answer: BufferedAnswer, items: unknown) => T[],
): PageFetcher<T> {
  return async (cursor) => {
    const answer = await transport.buffered({ method: 'GET', path: listPath, query: { cursor, limit: params.limit } }, options);
    const fail = (problem: string) => {
      const body = excerpt(answer.body.toString('utf8'));
      return new ResponseValidationError(
        `GET ${answer.url} answered ${answer.status} with ${problem}. Check that baseUrl is the Disposable Inbox API v1 root. Body: ${JSON.stringify(body)}`,
        { body, status: answer.status, url: answer.url },
      );
    };
    const page = readPage(transport.envelope(answer));
    if (page === null) throw fail('a "data" that is neither a list nor { items, nextCursor }');
    const nextCursor = normaliseCursor(page.nextCursor);
    if (nextCursor === undefined) throw fail('a nextCursor that is not a string');
    if (nextCursor !== null && nextCursor === cursor) throw fail(`the same nextCursor as the page it was asked for ("${nextCursor}"), which would loop forever`);
    return { items: parseItems(answer, page.items), nextCursor, response: answer.info };
  };
}

export function list<T>(
  transport: Transport,
  listPath: string,
  options: (ListParams & RequestOptions) | undefined,
  parseItems: (answer: BufferedAnswer, items: unknown) => T[],
): PagePromise<T> {
  const [params, rest] = split<ListParams>(options, ['cursor', 'limit']);
  return new PagePromise(pageFetcher(transport, listPath, params, rest, parseItems), params.cursor);
}

export function filenameOf(disposition: string | undefined): string | null {
  if (!disposition) return null;
  const star = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(disposition);
  if (star?.[2]) {
    try {
      const charset = (star[1] ?? '').toLowerCase();
      const raw = star[2].trim();
      return charset === 'iso-8859-1' ? raw.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : decodeURIComponent(raw);
    } catch {}
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(disposition);
  const name = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2]?.trim();
  return name ? name : null;
}

