/**
 * The webhooks the provider APIs call back (Twilio's `StatusCallback`, an
 * inbound SMS to the app): a form POST, signed as the provider signs it. Only
 * loopback hosts are called: the app under test runs beside the service, and
 * a shared service must not be made to fetch anything else.
 *
 * @packageDocumentation
 */
import { isLoopbackHost } from '../../wire/defaults.ts';

/** How long a webhook may take before it is given up. */
export const CALLBACK_TIMEOUT_MS = 10_000;

/** The logging it needs (a pino logger fits). */
export interface CallbackLogger {
  warn(obj: object, msg?: string): void;
}

/** Why a webhook URL is refused, or null when it may be called. */
export function callbackProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not an absolute URL`;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return `${url} is not an http(s) URL`;
  if (!isLoopbackHost(parsed.hostname)) return `${parsed.hostname} is not a loopback host: the service calls back only the app beside it (localhost, 127.x.x.x, [::1])`;
  return null;
}

/** POSTs a form to a webhook with extra headers; resolves with the answer's status, or rejects. */
export async function postForm(url: string, params: Record<string, string>, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return post(url, new URLSearchParams(params).toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers });
}

/** POSTs JSON to a webhook (Vonage's delivery receipts); resolves with the answer's status, or rejects. */
export async function postJson(url: string, json: Record<string, string>): Promise<{ status: number; body: string }> {
  return post(url, JSON.stringify(json), { 'content-type': 'application/json' });
}

/** POSTs a JSON body as given with extra headers (Postmark's webhooks); resolves with the answer's status, or rejects. */
export async function postJsonBody(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return post(url, body, { ...headers, 'content-type': 'application/json' });
}

/** POSTs a body as given (signed JSON of the email providers' events) to a webhook; resolves with the answer's status, or rejects. */
export async function postBody(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return post(url, body, headers);
}

async function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const problem = callbackProblem(url);
  if (problem) throw new Error(`inboxkit: refused to call ${url}: ${problem}`);
  const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(CALLBACK_TIMEOUT_MS) });
  return { status: response.status, body: (await response.text()).slice(0, 64 * 1024) };
}
