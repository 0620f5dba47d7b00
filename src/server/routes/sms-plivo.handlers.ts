/**
 * Plivo's Messages API, as an app's `plivo` SDK calls it with
 * `new plivo.Client(authId, authToken, { url: `${INBOXKIT_PLIVO_BASE_URL}/v1/Account/${authId}` })`:
 * `POST /v1/Account/{authId}/Message/` checks every destination (`dst`,
 * several joined by `<`) with the intake, then delivers to each and answers
 * Plivo's 202 with a message UUID per destination, or Plivo's error. A
 * delivery report per message goes to the send's `url`, signed (V2) with
 * the auth token the request carried. Other paths answer Plivo's 404.
 *
 * @packageDocumentation
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Reach } from '../auth/caller.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import type { RecipientCheck } from '../intake/types.ts';
import { callerOf } from '../auth/caller.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { basicCredentials, segmentsOf } from '../sms/kit.ts';
import { PLIVO_MAX_TEXT, plivoError, plivoMessageUuid, plivoQueued, plivoReportForm, plivoSignatureHeaders } from '../sms/plivo.ts';
import type { PlivoAnswer, PlivoReport } from '../sms/plivo.ts';
import { E164_PATTERN } from '../../wire/phones.ts';
import { checkPhone, deliverChecked, smsReachOf } from './sms-intake.ts';

function answer(c: Context<AppEnv>, a: PlivoAnswer): Response {
  return c.json(a.body, a.status);
}

/** A send as the SDK's JSON gives it (Plivo numbers go without `+`). */
interface PlivoSend {
  src: string;
  dst: string[];
  text: string;
  url: string;
}

async function parseSend(c: Context<AppEnv>): Promise<PlivoSend | null> {
  const body = (await c.req.json().catch(() => null)) as Record<string, unknown> | null;
  if (!body || typeof body !== 'object') return null;
  const text = (key: string) => (typeof body[key] === 'string' ? (body[key] as string) : '');
  const plus = (n: string) => (n.startsWith('+') ? n : `+${n}`);
  return { src: text('src'), dst: text('dst').split('<').map((n) => plus(n.trim())).filter((n) => n !== '+'), text: text('text'), url: text('url') };
}

function checkSend(send: PlivoSend | null): PlivoAnswer | null {
  if (!send) return plivoError(400, 'the request body is not JSON: the plivo SDK sends { src, dst, text }');
  if (send.src === '') return plivoError(400, 'src parameter is required');
  if (send.dst.length === 0) return plivoError(400, 'dst parameter is required');
  if (send.text === '') return plivoError(400, 'text parameter is required');
  if ([...send.text].length > PLIVO_MAX_TEXT) return plivoError(400, `text parameter exceeds ${PLIVO_MAX_TEXT} characters`);
  const bad = send.dst.find((n) => !E164_PATTERN.test(n));
  return bad ? plivoError(400, `invalid dst parameter: ${bad.slice(1)} is not a number in E.164 without the +`) : null;
}

/** Plivo's report of a checked destination: accepted ones are delivered; a fault fails it with Plivo's error code. */
function reportOf(check: RecipientCheck, base: Omit<PlivoReport, 'status' | 'errorCode' | 'to'>): PlivoReport {
  const to = check.recipient.slice(1);
  if (check.verdict === 'accepted') return { ...base, to, status: 'delivered', errorCode: '' };
  if (check.verdict === 'refused' && check.fault.class === 'opted_out') return { ...base, to, status: 'failed', errorCode: '200' };
  if (check.verdict === 'refused') return { ...base, to, status: 'failed', errorCode: '50' };
  return { ...base, to, status: 'undelivered', errorCode: '70' };
}

/** Posts a report to the send's `url`, signed; a failure is logged, never retried. */
async function sendReport(ctx: ServerContext, caller: string, url: string, authToken: string, report: PlivoReport): Promise<void> {
  if (url === '') return;
  try {
    await ctx.webhooks.postForm(caller, url, plivoReportForm(report), plivoSignatureHeaders(authToken, url));
  } catch (error) {
    ctx.logger.warn({ err: error, url, messageUuid: report.uuid }, 'sms: the Plivo delivery report failed');
  }
}

/** `POST …/Message/`: check every destination, deliver, answer. */
async function sendMessage(c: Context<AppEnv>, ctx: ServerContext, reach: Reach): Promise<Response> {
  const send = await parseSend(c);
  const problem = checkSend(send);
  if (problem || !send) return answer(c, problem ?? plivoError(400, 'invalid request'));
  const checks = await Promise.all(send.dst.map((to) => checkPhone(ctx, 'plivo', reach, to)));
  const unknown = checks.find((check) => check.verdict === 'unknown');
  if (unknown) return answer(c, plivoError(400, `invalid dst parameter: ${unknown.recipient.slice(1)} is not an active inboxkit phone this caller may text (numbers come from POST /api/v1/phones)`));
  const token = basicCredentials(c.req.header('authorization'))?.password ?? '';
  const uuids = checks.map(() => plivoMessageUuid());
  const caller = callerOf(c.var.principal, clientAddressOf(c)).key;
  await Promise.all(
    checks.map(async (check, index) => {
      const uuid = uuids[index] ?? '';
      const report = reportOf(check, { uuid, from: send.src, segments: segmentsOf(send.text) });
      if (check.verdict === 'accepted') await deliverChecked(c, ctx, reach, check, { to: check.recipient, from: send.src, body: send.text, provider: 'plivo', providerId: uuid });
      void sendReport(ctx, caller, send.url, token, report);
    }),
  );
  return answer(c, plivoQueued(uuids));
}

/** The Plivo routes, mounted at `/sms/plivo`. */
export function createPlivoRoutes(ctx: ServerContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.post('/v1/Account/:authId/Message/', (c) => {
    const reach = smsReachOf(c, ctx);
    if (!reach) return answer(c, plivoError(401, 'Authentication failed: this shared inboxkit service takes an inboxkit API key as the auth token (new plivo.Client(authId, "tm_…")).'));
    return sendMessage(c, ctx, reach);
  });
  app.all('*', (c) => answer(c, plivoError(404, `${c.req.method} ${c.req.path.replace(/^\/sms\/plivo/, '')} is not served by inboxkit's Plivo emulation: it serves POST /v1/Account/{authId}/Message/ (messages.create) only.`)));
  return app;
}
