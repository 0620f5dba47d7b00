/**
 * The SMS provider APIs, as apps' own SDKs call them, under `/sms` (outside
 * `/api/v1`): Twilio (`/sms/twilio`), AWS SNS (`/sms/sns`), Vonage
 * (`/sms/vonage`). Each answers in its provider's shapes, errors included.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { createSnsRoutes } from './sms-sns.handlers.ts';
import { createTwilioRoutes } from './sms-twilio.handlers.ts';
import { createVonageRoutes } from './sms-vonage.handlers.ts';

/** Every provider API, mounted at `/sms`. */
export function createSmsRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.route('/twilio', createTwilioRoutes(ctx));
  app.route('/sns', createSnsRoutes(ctx));
  app.route('/vonage', createVonageRoutes(ctx));
  return app;
}
