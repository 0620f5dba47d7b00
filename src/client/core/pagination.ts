/**
 * Cursor pagination: a list call can be awaited for one page, or iterated with
 * `for await` over every item of every page.
 *
 * @packageDocumentation
 */
import type { RateLimit, ResponseInfo } from './types.ts';

/** Fetches the page at `cursor` (`undefined` for the first). */
export type PageFetcher<T> = (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null; response: ResponseInfo }>;

/** One page of a list. */
export class Page<T> {
  /** The items of this page. */
  readonly items: T[];
  /** The cursor of the next page, `null` on the last page. */
  readonly nextCursor: string | null;
  /** The answer this page came from. */
  readonly response: ResponseInfo;
  readonly #fetch: PageFetcher<T>;

  /** Used by {@link PagePromise}. */
  constructor(items: T[], nextCursor: string | null, response: ResponseInfo, fetch: PageFetcher<T>) {
    this.items = items;
    this.nextCursor = nextCursor;
    this.response = response;
    this.#fetch = fetch;
  }

  /** `X-RateLimit-*` values of this page's answer. */
  get rateLimit(): RateLimit {
    return this.response.rateLimit;
  }

  /** Whether there is a page after this one. */
  hasNextPage(): boolean {
    return this.nextCursor !== null;
  }

  /** The next page, or `null` on the last page. */
  async nextPage(): Promise<Page<T> | null> {
    if (this.nextCursor === null) return null;
    const next = await this.#fetch(this.nextCursor);
    return new Page(next.items, next.nextCursor, next.response, this.#fetch);
  }
}

/**
 * What a list call returns: `await` it for the first page, or `for await` over it
 * for every item across pages (the next page is fetched when the current one is used up).
 *
 * @example
 * ```ts
 * const first = await client.messages.list(inbox.id, { limit: 50 });
 * console.log(first.items.length, first.nextCursor);
 * for await (const message of client.messages.list(inbox.id)) console.log(message.subject);
 * ```
 */
export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  readonly #first: Promise<Page<T>>;

  /** Starts fetching the first page. Used by the client's resources. */
  constructor(fetch: PageFetcher<T>, cursor?: string) {
    this.#first = fetch(cursor).then((p) => new Page(p.items, p.nextCursor, p.response, fetch));
  }

  /** Like `Promise.prototype.then`, on the first page. */
  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((value: Page<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#first.then(onfulfilled, onrejected);
  }

  /** Like `Promise.prototype.catch`. */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page<T> | R> {
    return this.#first.then(undefined, onrejected);
  }

  /** Every page, starting with the first. */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let page: Page<T> | null = await this.#first;
    while (page) {
      yield page;
      page = await page.nextPage();
    }
  }

  /** Every item of every page. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }

  /** Collects every item of every page into an array (mind the size of the list). */
  async all(): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) items.push(item);
    return items;
  }

  get [Symbol.toStringTag](): string {
    return 'PagePromise';
  }
}
