/**
 * The viewer's access to the Disposable Inbox API: plain `fetch` with the
 * credential from the URL fragment in a header (never in a URL), and the event
 * streams read with `fetch` (EventSource cannot send headers) and
 * eventsource-parser.
 *
 * @packageDocumentation
 */
import type { SpamCheck } from '../wire/spam-check.ts';
import type { AuthenticationCheck, AuthenticationCheckRequest } from '../wire/authentication-check.ts';
import { createParser } from 'eventsource-parser';
import type { Inbox, Message, MessageSummary } from '../wire/schemas.ts';
import type { ServiceListeners } from '../wire/service.ts';

/** How the viewer authenticates: an inbox token, or a bearer credential (API key, session token, operator token). */
export type Credential = { kind: 'inboxToken'; value: string } | { kind: 'bearer'; value: string };

/** A failed API call: the HTTP status and the error envelope's code and message. */
export class ApiFailure extends Error {
  override readonly name = 'ApiFailure';
  /** HTTP status, 0 when the service could not be reached. */
  readonly status: number;
  /** The error envelope's `code`. */
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A page of a list. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** One event of `GET /me/events`. */
export type UserEvent =
  | { type: 'inbox.created'; inbox: Inbox }
  | { type: 'inbox.deleted' | 'inbox.expired'; inboxId: string }
  | { type: 'message'; inboxId: string; message: MessageSummary };

/** One event of `GET /inboxes/{id}/stream`. */
export type InboxStreamEvent = { type: 'message'; message: MessageSummary } | { type: 'ready'; lastSeq: number } | { type: 'inbox.deleted' | 'inbox.expired' };

/** A live stream: `close()` ends it and its reconnects. */
export interface LiveStream {
  close(): void;
}

/** The API of one origin with one credential. */
export class Api {
  readonly #base: string;
  readonly #credential: Credential;

  constructor(base: string, credential: Credential) {
    this.#base = base;
    this.#credential = credential;
  }

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    const auth: Record<string, string> =
      this.#credential.kind === 'inboxToken' ? { 'X-Inbox-Token': this.#credential.value } : { Authorization: `Bearer ${this.#credential.value}` };
    return { ...auth, ...extra };
  }

  async #call(method: string, path: string, signal?: AbortSignal, body?: unknown): Promise<Response> {
    let res: Response;
    try {
      const json = body === undefined ? {} : { body: JSON.stringify(body), headers: { ...this.#headers(), 'content-type': 'application/json' } };
      res = await fetch(`${this.#base}${path}`, { method, headers: this.#headers(), ...(signal ? { signal } : {}), ...json });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw new ApiFailure(0, 'network', `The inbox service cannot be reached (${(error as Error).message}). Is inboxkit serve still running?`);
    }
    if (!res.ok) {
      let code = 'http_error';
      let message = `HTTP ${res.status}`;
      try {
        const body = (await res.json()) as { error?: { code?: string; message?: string } };
        code = body.error?.code ?? code;
        message = body.error?.message ?? message;
      } catch {}
      throw new ApiFailure(res.status, code, message);
    }
    return res;
  }

  async #json<T>(method: string, path: string, signal?: AbortSignal, body?: unknown): Promise<T> {
    const res = await this.#call(method, path, signal, body);
    return ((await res.json()) as { data: T }).data;
  }

  /** Where the service's mail listeners are (inboxkit extension: `GET /service`). */
  service(): Promise<ServiceListeners> {
    return this.#json('GET', '/service');
  }

  /** The inboxes the credential can see (one page). */
  inboxes(cursor: string | null = null): Promise<Page<Inbox>> {
    return this.#json('GET', `/inboxes?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
  }

  /** One inbox. */
  inbox(id: string): Promise<Inbox> {
    return this.#json('GET', `/inboxes/${encodeURIComponent(id)}`);
  }

  /** A page of an inbox's messages, newest first; `q` filters (inboxkit extension). */
  messages(inboxId: string, options: { cursor?: string | null; limit?: number; q?: string; signal?: AbortSignal } = {}): Promise<Page<MessageSummary>> {
    const query = new URLSearchParams({ limit: String(options.limit ?? 50) });
    if (options.cursor) query.set('cursor', options.cursor);
    if (options.q) query.set('q', options.q);
    return this.#json('GET', `/inboxes/${encodeURIComponent(inboxId)}/messages?${query}`, options.signal);
  }

  /** A whole message. */
  message(id: string): Promise<Message> {
    return this.#json('GET', `/messages/${encodeURIComponent(id)}`);
  }

  /** The raw source of a message, as text (inboxkit extension). */
  async raw(id: string): Promise<string> {
    return (await this.#call('GET', `/messages/${encodeURIComponent(id)}/raw`)).text();
  }

  /** Scores a message with the service's spam scanner (inboxkit extension). */
  spamCheck(id: string): Promise<SpamCheck> {
    return this.#json('POST', `/messages/${encodeURIComponent(id)}/spam-check`);
  }

  /** Checks DKIM, SPF, DMARC and ARC of a message against a test DNS map (inboxkit extension). */
  authentication(id: string, request: AuthenticationCheckRequest): Promise<AuthenticationCheck> {
    return this.#json('POST', `/messages/${encodeURIComponent(id)}/authentication`, undefined, request);
  }

  /**
   * An attachment's bytes, as received, typed by {@link blobTypeFor}: a blob
   * URL is of the viewer's origin, so a declared `text/html` must not become one.
   */
  async attachment(messageId: string, attachmentId: string): Promise<Blob> {
    const blob = await (await this.#call('GET', `/messages/${encodeURIComponent(messageId)}/attachments/${encodeURIComponent(attachmentId)}`)).blob();
    return new Blob([blob], { type: blobTypeFor(blob.type) });
  }

  /** Deletes a message. */
  async deleteMessage(id: string): Promise<void> {
    await this.#json('DELETE', `/messages/${encodeURIComponent(id)}`);
  }

  /** Deletes an inbox and its messages. */
  async deleteInbox(id: string): Promise<void> {
    await this.#json('DELETE', `/inboxes/${encodeURIComponent(id)}`);
  }

  /**
   * Reads an event stream and reconnects (after the server's `retry`, 2 s)
   * until closed; `path` is called before each connection, so a reconnect can
   * resume. `onState` reports whether the stream is connected.
   */
  #stream(path: () => string, onEvent: (name: string, data: string) => boolean | void, onState: (live: boolean) => void): LiveStream {
    const controller = new AbortController();
    let stopped = false;
    const run = async () => {
      while (!stopped) {
        try {
          const res = await this.#call('GET', path(), controller.signal);
          const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
          let finished = false;
          const parser = createParser({
            onEvent: (event) => {
              if (event.event === 'ready') onState(true);
              if (onEvent(event.event ?? 'message', event.data) === false) finished = true;
            },
          });
          while (!finished) {
            const { value, done } = await reader.read();
            if (done) break;
            parser.feed(value);
          }
          if (finished) {
            await reader.cancel().catch(() => {});
            stopped = true;
          }
        } catch (error) {
          if (stopped || (error as Error).name === 'AbortError') return;
          if (error instanceof ApiFailure && error.status >= 400 && error.status < 500 && error.status !== 429) {
            onState(false);
            return;
          }
        }
        onState(false);
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    };
    void run();
    return {
      close() {
        stopped = true;
        controller.abort();
      },
    };
  }

  /** Every inbox event the credential may see (`GET /me/events`, inboxkit extension). */
  userEvents(onEvent: (event: UserEvent) => void, onState: (live: boolean) => void): LiveStream {
    return this.#stream(
      () => '/me/events',
      (name, data) => {
        if (name === 'inbox.created') onEvent({ type: 'inbox.created', inbox: JSON.parse(data) as Inbox });
        else if (name === 'inbox.deleted' || name === 'inbox.expired') onEvent({ type: name, inboxId: (JSON.parse(data) as { inboxId: string }).inboxId });
        else if (name === 'message') {
          const parsed = JSON.parse(data) as { inboxId: string; message: MessageSummary };
          onEvent({ type: 'message', inboxId: parsed.inboxId, message: parsed.message });
        }
      },
      onState,
    );
  }

  /**
   * An inbox's live messages (`GET /inboxes/{id}/stream`), from after seq
   * `afterSeq`; a reconnect resumes after the last message received.
   */
  inboxEvents(inboxId: string, afterSeq: number, onEvent: (event: InboxStreamEvent) => void, onState: (live: boolean) => void): LiveStream {
    let last = afterSeq;
    return this.#stream(
      () => `/inboxes/${encodeURIComponent(inboxId)}/stream?lastEventId=${last}`,
      (name, data) => {
        if (name === 'message') {
          const message = JSON.parse(data) as MessageSummary;
          last = Math.max(last, message.seq);
          onEvent({ type: 'message', message });
        } else if (name === 'ready') {
          onEvent({ type: 'ready', lastSeq: (JSON.parse(data) as { lastSeq: number }).lastSeq });
        } else if (name === 'inbox.deleted' || name === 'inbox.expired') {
          onEvent({ type: name });
          return false;
        }
        return undefined;
      },
      onState,
    );
  }
}

/** Raster image types a blob URL may keep (shown as thumbnails); SVG is a document and is not one. */
const SAFE_BLOB_TYPE = /^image\/(?:png|jpeg|gif|webp|bmp|avif)$/i;

/**
 * The type an attachment's blob gets in the viewer: its declared type when it
 * is a raster image, otherwise `application/octet-stream`, so that a blob URL
 * opened in a tab downloads instead of running as a page of the viewer's origin.
 *
 * @example
 * ```ts
 * blobTypeFor('text/html'); // 'application/octet-stream'
 * blobTypeFor('image/png'); // 'image/png'
 * ```
 */
export function blobTypeFor(declared: string): string {
  const type = declared.split(';')[0]?.trim().toLowerCase() ?? '';
  return SAFE_BLOB_TYPE.test(type) ? type : 'application/octet-stream';
}
