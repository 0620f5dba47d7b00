import { OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { HttpError } from './errors.ts';

/**
 * A router whose request validation failures become `400 validation_error`
 * envelopes naming the offending field. Every resource's routes are declared on
 * one of these and mounted under `/api/v1` by the app.
 */
export function createRouter<E extends Env = Env>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) {
        const issue = result.error.issues[0];
        const where = issue && issue.path.length > 0 ? issue.path.join('.') : result.target;
        throw new HttpError('validation_error', `${where}: ${issue?.message ?? 'invalid value'}`);
      }
      return undefined;
    },
  });
}
