/**
 * The parameters of a Vonage API request, which its SDK sends as JSON and
 * other clients as a form.
 *
 * @packageDocumentation
 */
import type { Context } from 'hono';
import type { AppEnv } from '../context/context.ts';

/** The request's parameters, JSON or form-encoded, as strings. */
/** A Vonage request's parameters, by name. */
export type VonageParams = Record<string, string>;

export async function paramsOf(c: Context<AppEnv>): Promise<Record<string, string>> {
  const type = c.req.header('content-type') ?? '';
  const raw: Record<string, unknown> = /json/i.test(type) ? ((await c.req.json().catch(() => ({}))) as Record<string, unknown>) : await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw ?? {})) if (typeof value === 'string' || typeof value === 'number') out[key] = String(value);
  return out;
}
