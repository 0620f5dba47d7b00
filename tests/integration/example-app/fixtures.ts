/**
 * Fixtures for the example app's integration tests: a real SMTP receiver on
 * port 0 (smtp-server + mailparser), the app on port 0 sending to it, and a tiny
 * cookie-keeping HTTP client that follows redirects like a browser.
 */
import { test as base } from '@playwright/test';
import { load } from 'cheerio';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startExampleApp, type ExampleApp } from '../../../examples/app/app.ts';

/** A received message: the raw bytes as sent over SMTP and the parsed form. */
export interface ReceivedMail {
  /** Envelope recipients (RCPT TO). */
  to: string[];
  /** The raw message, CRLF line endings, exactly as received. */
  raw: string;
  /** The parsed message (cid: image links kept). */
  parsed: ParsedMail;
}

/** A real SMTP server collecting every message it receives. */
export interface SmtpReceiver {
  /** Port it listens on (127.0.0.1). */
  port: number;
  /** The next not-yet-taken message to `to` (optionally with this subject); waits for it. */
  nextMail(to: string, subject?: string): Promise<ReceivedMail>;
  /** Stops the server. */
  close(): Promise<void>;
}

/** Starts an SMTP receiver on 127.0.0.1, port 0. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const inbox: ReceivedMail[] = [];
  const waiters = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw, { skipImageLinks: true }).then(
          (parsed) => {
            inbox.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw: raw.toString('latin1'), parsed });
            for (const wake of [...waiters]) wake();
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;

  const take = (to: string, subject?: string): ReceivedMail | undefined => {
    const index = inbox.findIndex((m) => m.to.includes(to.toLowerCase()) && (subject === undefined || m.parsed.subject === subject));
    return index === -1 ? undefined : inbox.splice(index, 1)[0];
  };

  return {
    port,
    nextMail(to, subject) {
      return new Promise((resolve) => {
        const attempt = (): boolean => {
          const found = take(to, subject);
          if (found) {
            waiters.delete(wake);
            resolve(found);
          }
          return !!found;
        };
        const wake = (): void => void attempt();
        if (!attempt()) waiters.add(wake);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A page as fetched by {@link WebClient}. */
export interface WebPage {
  /** Final status after redirects. */
  status: number;
  /** Final URL after redirects. */
  url: string;
  /** Response body. */
  html: string;
}

/** A cookie-keeping HTTP client that follows redirects the way a browser does. */
export interface WebClient {
  /** GETs `url` (absolute, or a path on the app). */
  get(url: string): Promise<WebPage>;
  /** POSTs a form to `url`, like submitting it. */
  post(url: string, form: Record<string, string>): Promise<WebPage>;
  /** Submits the only form on `page`, with its hidden inputs plus `fields`. */
  submit(page: WebPage, fields: Record<string, string>): Promise<WebPage>;
}

/** Creates a {@link WebClient} against `baseUrl`. */
export function createWebClient(baseUrl: string): WebClient {
  const jar = new Map<string, string>();

  async function request(method: 'GET' | 'POST', url: string, body?: URLSearchParams): Promise<WebPage> {
    let current = new URL(url, baseUrl);
    let currentMethod = method;
    let currentBody = body;
    for (let hop = 0; hop < 10; hop++) {
      const response = await fetch(current, {
        method: currentMethod,
        redirect: 'manual',
        headers: {
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(currentBody ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(currentBody ? { body: currentBody } : {}),
      });
      for (const setCookie of response.headers.getSetCookie()) {
        const [pair = ''] = setCookie.split(';');
        const eq = pair.indexOf('=');
        const name = pair.slice(0, eq).trim();
        const value = pair.slice(eq + 1).trim();
        if (/max-age=0/i.test(setCookie)) jar.delete(name);
        else jar.set(name, value);
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        current = new URL(location, current);
        currentMethod = 'GET';
        currentBody = undefined;
        continue;
      }
      return { status: response.status, url: current.href, html: await response.text() };
    }
    throw new Error(`More than 10 redirects starting at ${url}`);
  }

  return {
    get: (url) => request('GET', url),
    post: (url, form) => request('POST', url, new URLSearchParams(form)),
    submit(page, fields) {
      const $ = load(page.html);
      const formElement = $('main form');
      if (formElement.length !== 1) throw new Error(`Expected one form on ${page.url}, found ${formElement.length}`);
      const data = new URLSearchParams();
      formElement.find('input[type=hidden]').each((_, el) => void data.append($(el).attr('name') ?? '', $(el).attr('value') ?? ''));
      for (const [k, v] of Object.entries(fields)) data.set(k, v);
      return request('POST', new URL(formElement.attr('action') ?? '', page.url).href, data);
    },
  };
}

/** A clock the test moves forward by hand. */
export interface ManualClock {
  /** Current time in milliseconds. */
  now(): number;
  /** Moves the clock forward. */
  advance(ms: number): void;
}

interface Fixtures {
  smtp: SmtpReceiver;
  clock: ManualClock;
  app: ExampleApp;
  web: WebClient;
}

/** The test object with `smtp`, `clock`, `app` and `web` fixtures, each fresh per test. */
export const test = base.extend<Fixtures>({
  // Playwright fixtures must destructure their first argument, even when they use no other fixture.
  // eslint-disable-next-line no-empty-pattern
  smtp: async ({}, use) => {
    const smtp = await startSmtpReceiver();
    await use(smtp);
    await smtp.close();
  },
  // eslint-disable-next-line no-empty-pattern
  clock: async ({}, use) => {
    let time = Date.parse('2026-11-22T09:30:00Z');
    await use({ now: () => time, advance: (ms) => void (time += ms) });
  },
  app: async ({ smtp, clock }, use) => {
    const app = await startExampleApp({ port: 0, smtpPort: smtp.port, now: clock.now });
    await use(app);
    await app.close();
  },
  web: async ({ app }, use) => {
    await use(createWebClient(app.url));
  },
});

export { expect } from '@playwright/test';
