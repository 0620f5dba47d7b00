/**
 * Helpers of the multi-node tests: an inbox over HTTP, an event-stream reader
 * that resumes with Last-Event-ID like a browser's EventSource and records
 * every message event it gets, and SMTP senders that report each 250.
 */
import { createParser } from 'eventsource-parser';
import nodemailer from 'nodemailer';

/** An inbox as created over the API. */
export interface Inbox {
  id: string;
  address: string;
  token: string;
}

export async function createInbox(apiUrl: string): Promise<Inbox> {
  const res = await fetch(`${apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (res.status !== 200 && res.status !== 201) throw new Error(`POST /inboxes answered ${res.status}: ${await res.text()}`);
  const { data } = (await res.json()) as { data: { id: string; address: string; token: string } };
  return { id: data.id, address: data.address, token: data.token };
}

/** GET on the API with the inbox token; the parsed JSON and the status. */
export async function getJson(apiUrl: string, path: string, inbox: Inbox): Promise<{ status: number; body: { data?: unknown; error?: { code: string } } & Record<string, unknown> }> {
  const res = await fetch(`${apiUrl}${path}`, { headers: { 'x-inbox-token': inbox.token } });
  return { status: res.status, body: (await res.json()) as never };
}

/** Every message of an inbox, newest first, page by page. */
export async function listAll(apiUrl: string, inbox: Inbox): Promise<Array<{ id: string; seq: number; subject: string }>> {
  const out: Array<{ id: string; seq: number; subject: string }> = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=100&cursor=${encodeURIComponent(cursor)}` : '?limit=100';
    const { status, body } = await getJson(apiUrl, `/inboxes/${inbox.id}/messages${query}`, inbox);
    if (status !== 200) throw new Error(`listing answered ${status}`);
    const page = body.data as { items: Array<{ id: string; seq: number; subject: string }>; nextCursor: string | null };
    out.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** A stream held open on one node: the message events it got, in order. */
export interface StreamRecorder {
  /** Seqs of the message events, in the order they came (duplicates included). */
  seqs: number[];
  /** Subjects by seq. */
  subjects: Map<number, string>;
  /** Whether each message event carried the whole message (it has `headers`), by seq. */
  whole: Map<number, boolean>;
  /** Connections made (1 + reconnects). */
  connections: number;
  /** The closing event (`inbox.deleted`, `inbox.expired`) once the stream ended with one. */
  ended: string | null;
  /** Resolves once at least `count` distinct seqs were received. */
  until(count: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

/**
 * Opens the inbox's event stream and keeps it open, resuming with Last-Event-ID
 * after a cut; with `includeMessage`, asks for whole messages (`?include=message`).
 */
export function recordStream(apiUrl: string, inbox: Inbox, options: { includeMessage?: boolean } = {}): Promise<StreamRecorder> {
  const seqs: number[] = [];
  const subjects = new Map<number, string>();
  const whole = new Map<number, boolean>();
  const seen = new Set<number>();
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const controller = new AbortController();
  let lastId: string | null = null;
  let connections = 0;
  let closed = false;
  let ended: string | null = null;
  let firstReady: (() => void) | null = null;
  const ready = new Promise<void>((resolve) => (firstReady = resolve));

  const wake = () => {
    for (const w of [...waiters]) {
      if (seen.size >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };

  const connectOnce = async () => {
    connections += 1;
    const headers: Record<string, string> = { 'x-inbox-token': inbox.token, accept: 'text/event-stream' };
    if (lastId !== null) headers['last-event-id'] = lastId;
    const query = options.includeMessage ? '?include=message' : '';
    const res = await fetch(`${apiUrl}/inboxes/${inbox.id}/stream${query}`, { headers, signal: controller.signal });
    if (res.status !== 200 || !res.body) throw new Error(`stream answered ${res.status}`);
    const parser = createParser({
      onEvent(event) {
        if (event.id !== undefined && event.event === 'message') lastId = event.id;
        if (event.event === 'ready') {
          if (lastId === null && event.id !== undefined) lastId = event.id;
          firstReady?.();
          firstReady = null;
        }
        if (event.event === 'inbox.deleted' || event.event === 'inbox.expired') {
          ended = event.event;
          closed = true;
        }
        if (event.event === 'message') {
          const data = JSON.parse(event.data) as { seq: number; subject: string; headers?: unknown };
          seqs.push(data.seq);
          subjects.set(data.seq, data.subject);
          whole.set(data.seq, data.headers !== undefined);
          seen.add(data.seq);
          wake();
        }
      },
    });
    const decoder = new TextDecoder();
    for await (const chunk of res.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
  };

  void (async () => {
    while (!closed) {
      try {
        await connectOnce();
      } catch {}
      if (!closed) await new Promise((r) => setTimeout(r, 200));
    }
  })();

  const recorder: StreamRecorder = {
    seqs,
    subjects,
    whole,
    get connections() {
      return connections;
    },
    get ended() {
      return ended;
    },
    until(count, timeoutMs = 60_000) {
      if (seen.size >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the stream got ${seen.size} of ${count} messages`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    close() {
      closed = true;
      controller.abort();
    },
  };
  return ready.then(() => recorder);
}

/** The caller-wide event stream (`GET /me/events`) held open on one node, without reconnecting. */
export interface CallerEventsRecorder {
  /** Every event after `ready`, in order: its name and parsed data. */
  events: Array<{ event: string; data: Record<string, unknown> }>;
  /** Whether the connection ended (a caller-wide stream that ends must be reopened by the client). */
  readonly ended: boolean;
  /** Resolves once an event matches (rejects after `timeoutMs`). */
  until(predicate: (e: { event: string; data: Record<string, unknown> }) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens `GET /me/events` with `headers` and records its events; resolves once it is `ready`. */
export async function recordCallerEvents(apiUrl: string, headers: Record<string, string>): Promise<CallerEventsRecorder> {
  const controller = new AbortController();
  const events: CallerEventsRecorder['events'] = [];
  const waiters: Array<() => void> = [];
  let ended = false;
  const res = await fetch(`${apiUrl}/me/events`, { headers, signal: controller.signal });
  if (res.status !== 200 || !res.body) throw new Error(`GET /me/events answered ${res.status}`);
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const parser = createParser({
    onEvent(e) {
      if (e.event === 'ready') ready();
      else events.push({ event: e.event ?? 'message', data: JSON.parse(e.data) as Record<string, unknown> });
      for (const wake of waiters.splice(0)) wake();
    },
  });
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
  })()
    .catch(() => {})
    .finally(() => {
      ended = true;
      for (const wake of waiters.splice(0)) wake();
    });
  await isReady;
  return {
    events,
    get ended() {
      return ended;
    },
    async until(predicate, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!events.some(predicate)) {
        if (ended) throw new Error(`GET /me/events ended; it got: ${JSON.stringify(events.map((e) => e.event))}`);
        if (Date.now() > deadline) throw new Error(`GET /me/events got no matching event; it got: ${JSON.stringify(events.map((e) => e.event))}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 500);
        });
      }
    },
    close: () => controller.abort(),
  };
}

/**
 * Sends `count` messages over one SMTP connection pool; resolves with the
 * subjects that got a 250. With `retry`, a refused message (451 while the
 * database is away, or a dead node) is sent again until accepted.
 */
export async function sendMany(
  smtpPort: number,
  to: string,
  prefix: string,
  count: number,
  options: { retry?: boolean; onAccepted?: (subject: string) => void } = {},
): Promise<string[]> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, maxMessages: Infinity });
  const accepted: string[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const subject = `${prefix}-${String(i).padStart(4, '0')}`;
      for (;;) {
        try {
          await transport.sendMail({ from: 'sender@example.com', to, subject, text: `body of ${subject}` });
          accepted.push(subject);
          options.onAccepted?.(subject);
          break;
        } catch (error) {
          if (!options.retry) throw error;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    }
  } finally {
    transport.close();
  }
  return accepted;
}

/** Asserts-friendly view of a stream: whether its seqs are exactly 1..n in order, once each. */
export function inOrderWithoutGaps(seqs: number[]): boolean {
  return seqs.every((seq, i) => seq === i + 1);
}
