import { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { HttpError } from './errors.ts';

/** A validation result as @hono/zod-openapi hands it to a hook. */
interface HookResult {
  success: boolean;
  target?: string;
  error?: { issues: Array<{ path: PropertyKey[]; message: string }> };
}

/** Whether a route's security requirements leave no anonymous way in (none of them is `{}`). */
function needsCredential(security: unknown): boolean {
  return Array.isArray(security) && security.length > 0 && security.every((requirement) => Object.keys(requirement as object).length > 0);
}

/** The validation hook of a route: authentication is decided first, so an anonymous caller learns nothing of what is checked. */
function hookFor(security: unknown) {
  const required = needsCredential(security);
  return (result: HookResult, c: { var: unknown }): undefined => {
    if (result.success) return undefined;
    if (required && (c.var as { principal?: { kind: string } }).principal?.kind === 'anonymous') {
      throw new HttpError('unauthorized', 'This endpoint needs a credential: send X-Inbox-Token (from POST /inboxes) or Authorization: Bearer <API key>.');
    }
    const issue = result.error?.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : result.target;
    throw new HttpError('validation_error', `${where}: ${issue?.message ?? 'invalid value'}`);
  };
}

/**
 * A router whose request validation failures become `400 validation_error`
 * envelopes naming the offending field — after authentication: on a route
 * that needs a credential, an anonymous request is a 401 whatever its body.
 * Every resource's routes are declared on one of these and mounted under
 * `/api/v1` by the app.
 */
export function createRouter<E extends Env = Env>(): OpenAPIHono<E> {
  const app = new OpenAPIHono<E>({ defaultHook: hookFor(undefined) as never });
  const openapi = app.openapi.bind(app);
  app.openapi = ((route: { security?: unknown }, handler: unknown, hook?: unknown) => openapi(route as never, handler as never, (hook ?? hookFor(route.security)) as never)) as typeof app.openapi;
  return app;
}
