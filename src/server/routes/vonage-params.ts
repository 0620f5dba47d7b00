/**
 * The parameters of a Vonage API request, which its SDK sends as JSON and
 * other clients as a form.
 *
 * @packageDocumentation
 */
import type { Context } from 'hono';
import type { AppEnv } from '../context/context.ts';
import { parseForm } from '../http/form.ts';

/** A Vonage request's parameters, by name. */
export type VonageParams = Record<string, string>;

/**
 * The request's parameters, JSON or form-encoded, as strings (a repeated form
 * field: its last value). A form is read within `parseForm`'s bounds.
 *
 * @throws FormError (413) for a form over its bounds of fields or bytes.
 */
export async function paramsOf(c: Context<AppEnv>): Promise<Record<string, string>> {
  const type = c.req.header('content-type') ?? '';
  const raw: Record<string, unknown> = /json/i.test(type) ? ((await c.req.json().catch(() => ({}))) as Record<string, unknown>) : await parseForm(c);
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw ?? {})) {
    const last: unknown = Array.isArray(value) ? value.at(-1) : value;
    if (typeof last === 'string' || typeof last === 'number') out[key] = String(last);
  }
  return out;
}
