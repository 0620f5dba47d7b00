/**
 * The message endpoints' behaviour (definitions in `messages.routes.ts`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono, RouteHandler } from '@hono/zod-openapi';
import { loadVisibleInbox } from '../auth/visibility.ts';
import type { Principal } from '../auth/principal.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { HttpError } from '../http/errors.ts';
import { createRouter } from '../http/router.ts';
import { contentDisposition, toMessage, toMessageSummary } from '../http/present.ts';
import { InvalidCursorError } from '../storage/contract/cursor.ts';
import type { MessageRecord } from '../storage/contract/types.ts';
import { authenticationCheckRoute, deleteMessageRoute, getAttachmentRoute, getMessageRoute, getRawRoute, listMessagesRoute, spamCheckRoute, updateMessageRoute } from './messages.routes.ts';
import { SpamCheckError } from '../spam/scanner.ts';
import { callerOf } from '../auth/caller.ts';
import type { FairShare } from '../auth/fair-share.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { AuthenticationCheckError, assertMailauthInstalled, authenticationSession } from '../../checks/authentication.ts';
import { AnalysisBoundError, AnalysisFailedError } from '../../checks/analysis-runner.ts';
import { AUTHENTICATION_TIMEOUT_MS } from '../context/pools.ts';
import type { AnalysisRunner } from '../../checks/analysis-runner.ts';
import type { AuthenticationCheck, AuthenticationCheckRequest } from '../../wire/authentication-check.ts';


/** Headers that keep a download from being rendered or sniffed as a page of the API's origin. */
const DOWNLOAD_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cache-Control': 'private, no-store',
};

/**
 * The authentication check of a stored message against the body's test DNS,
 * in a worker thread that is terminated at the time bound or over its heap
 * bound; the envelope recorded at intake is the SMTP session unless the body
 * overrides it. Each failure answers with the bound or the record it names.
 */
async function authenticate(runner: AnalysisRunner, message: MessageRecord, raw: Uint8Array, body: AuthenticationCheckRequest): Promise<AuthenticationCheck> {
  const envelope = message.envelope ?? null;
  const session = authenticationSession(envelope, body);
  try {
    assertMailauthInstalled();
    return await runner.run({ kind: 'authentication', input: { raw, dns: body.dns, session, trustReceived: envelope === null, timeoutMs: AUTHENTICATION_TIMEOUT_MS } });
  } catch (error) {
    if (error instanceof AnalysisBoundError) {
      if (error.bound === 'busy') throw new HttpError('limit_reached', `${error.message.replace(/^analysis: /, '')} (authentication checks)`, { 'Retry-After': '1' });
      throw new HttpError('authentication_failed', `The authentication check was stopped at its ${error.bound} bound: ${error.message.replace(/^analysis: /, '')}`);
    }
    if (error instanceof AuthenticationCheckError && error.kind === 'unavailable') throw new HttpError('authentication_unavailable', error.message);
    if (!(error instanceof AnalysisFailedError)) throw error;
    if (error.name === 'TestDnsError') throw new HttpError('validation_error', `${error.message} (see docs/email-checks.md).`);
    if (error.kind === 'unavailable') throw new HttpError('authentication_unavailable', error.message);
    throw new HttpError('authentication_failed', `The authentication check failed: ${error.message.replace(/^authentication: /, '')}; send a smaller test DNS (an SPF record that includes many others is a likely cause).`);
  }
}

/** The message, if the caller may see it; otherwise 404 message_not_found. */
async function loadVisibleMessage(ctx: ServerContext, principal: Principal, id: string): Promise<MessageRecord> {
  const message = await ctx.store.findMessage(id);
  if (message) {
    try {
      await loadVisibleInbox(ctx, principal, message.inboxId);
      return message;
    } catch (error) {
      if (!(error instanceof HttpError) || error.code !== 'inbox_not_found') throw error;
    }
  } else if (principal.kind === 'anonymous') {
    // Same answer as for an existing message: a credential is needed first.
    await loadVisibleInbox(ctx, principal, '');
  }
  throw new HttpError('message_not_found', `No message ${JSON.stringify(id)} is visible to this credential (it may not exist, have been deleted, or belong to another inbox).`);
}

/** A message's raw source; 404 message_not_found when it was deleted since it was read. */
async function loadRaw(ctx: ServerContext, message: MessageRecord): Promise<Uint8Array> {
  const raw = await ctx.store.findRaw(message.id);
  if (!raw) throw new HttpError('message_not_found', `The raw source of message ${JSON.stringify(message.id)} is gone: it was deleted meanwhile.`);
  return raw;
}

/** `GET /inboxes/{id}/messages`: a page of the inbox's message summaries, newest first, optionally searched. */
function listMessages(ctx: ServerContext): RouteHandler<typeof listMessagesRoute, AppEnv> {
  return async (c) => {
    const { id } = c.req.valid('param');
    const { cursor, limit, q } = c.req.valid('query');
    const inbox = await loadVisibleInbox(ctx, c.var.principal, id);
    try {
      const page = await ctx.store.listMessages(inbox.id, { cursor: cursor ?? null, limit, q: q?.trim() || null });
      return c.json({ data: { items: page.items.map(toMessageSummary), nextCursor: page.nextCursor } }, 200);
    } catch (error) {
      if (error instanceof InvalidCursorError) throw new HttpError('validation_error', error.message);
      throw error;
    }
  };
}

/** `GET /messages/{id}`: the whole message. */
function getMessage(ctx: ServerContext): RouteHandler<typeof getMessageRoute, AppEnv> {
  return async (c) => {
    const message = await loadVisibleMessage(ctx, c.var.principal, c.req.valid('param').id);
    return c.json({ data: toMessage(message, ctx.html) }, 200);
  };
}

/** `DELETE /messages/{id}`. */
function deleteMessage(ctx: ServerContext): RouteHandler<typeof deleteMessageRoute, AppEnv> {
  return async (c) => {
    const message = await loadVisibleMessage(ctx, c.var.principal, c.req.valid('param').id);
    if (!(await ctx.store.deleteMessage(message.id))) {
      throw new HttpError('message_not_found', `No message ${JSON.stringify(message.id)}: it was deleted meanwhile.`);
    }
    return c.json({ data: { id: message.id, deleted: true as const } }, 200);
  };
}

/** `PATCH /messages/{id}`: the read state IMAP and POP3 share (\\Seen). */
function updateMessage(ctx: ServerContext): RouteHandler<typeof updateMessageRoute, AppEnv> {
  return async (c) => {
    const message = await loadVisibleMessage(ctx, c.var.principal, c.req.valid('param').id);
    const { seen } = c.req.valid('json');
    const updated = (await ctx.store.setMessageSeen(message.id, seen)) ? await ctx.store.findMessage(message.id) : null;
    if (!updated) throw new HttpError('message_not_found', `No message ${JSON.stringify(message.id)}: it was deleted meanwhile.`);
    return c.json({ data: toMessage(updated, ctx.html) }, 200);
  };
}

/** `GET /messages/{id}/attachments/{attachmentId}`: the attachment's bytes, as a download. */
function getAttachment(ctx: ServerContext): RouteHandler<typeof getAttachmentRoute, AppEnv> {
  return async (c) => {
    const { id, attachmentId } = c.req.valid('param');
    const message = await loadVisibleMessage(ctx, c.var.principal, id);
    const found = await ctx.store.findAttachment(message.id, attachmentId);
    if (!found) {
      throw new HttpError('attachment_not_found', `Message ${JSON.stringify(message.id)} has no attachment ${JSON.stringify(attachmentId)}; see its attachments list (GET /messages/${message.id}).`);
    }
    return new Response(found.content as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: {
        'Content-Type': found.record.contentType,
        'Content-Length': String(found.content.byteLength),
        'Content-Disposition': contentDisposition(found.record.filename),
        ...DOWNLOAD_HEADERS,
      },
    });
  };
}

/** `GET /messages/{id}/raw` (extension): the source as received, `message/rfc822`. */
function getRaw(ctx: ServerContext): RouteHandler<typeof getRawRoute, AppEnv> {
  return async (c) => {
    const message = await loadVisibleMessage(ctx, c.var.principal, c.req.valid('param').id);
    const raw = await loadRaw(ctx, message);
    return new Response(raw as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: {
        'Content-Type': 'message/rfc822',
        'Content-Length': String(raw.byteLength),
        'Content-Disposition': contentDisposition(`${message.id}.eml`, 'inline'),
        ...DOWNLOAD_HEADERS,
      },
    });
  };
}

/** The checks' slots of one node, each caller with its own share (src/server/auth/fair-share.ts). */
interface CheckShares {
  spam: FairShare;
  authentication: FairShare;
}

/** `POST /messages/{id}/spam-check`: the message's source scored by the service's spam scanner, within the caller's share of the scanner's slots. */
function spamCheck(ctx: ServerContext, shares: CheckShares): RouteHandler<typeof spamCheckRoute, AppEnv> {
  return async (c) => {
    const message = await loadVisibleMessage(ctx, c.var.principal, c.req.valid('param').id);
    const scanner = ctx.spamScanner;
    if (!scanner) {
      throw new HttpError(
        'spam_check_unavailable',
        'This service has no spam scanner: start it with --spam-check spamd://127.0.0.1:783 (inboxkit serve) or spamCheck (inboxkitServer), with SpamAssassin\'s spamd running there (Debian: apt-get install spamd; see docs/email-checks.md).',
      );
    }
    const raw = await loadRaw(ctx, message);
    const caller = callerOf(c.var.principal, clientAddressOf(c));
    const release = shares.spam.acquire(caller);
    try {
      // The scanner's queue takes turns by the caller the shares charge: a guest's address, else its credential.
      return c.json({ data: await scanner.check(raw, caller.guest ? `addr:${caller.address}` : caller.key) }, 200);
    } catch (error) {
      if (!(error instanceof SpamCheckError)) throw error;
      ctx.logger.warn({ err: error, scanner: scanner.url }, 'spam check failed');
      throw new HttpError('spam_check_failed', `The spam check failed: ${error.message}. Check that the scanner runs at ${scanner.url} (see docs/email-checks.md).`);
    } finally {
      release();
    }
  };
}

/**
 * `POST /messages/{id}/authentication`: DKIM, SPF, DMARC and ARC of the
 * message against the body's test DNS, in a worker of `runner` (time and heap
 * bounded), within the caller's share of the node's slots; more are refused,
 * never queued.
 */
function authenticationCheck(ctx: ServerContext, shares: CheckShares, runner: AnalysisRunner): RouteHandler<typeof authenticationCheckRoute, AppEnv> {
  return async (c) => {
    const message = await loadVisibleMessage(ctx, c.var.principal, c.req.valid('param').id);
    const body = c.req.valid('json');
    const raw = await loadRaw(ctx, message);
    const release = shares.authentication.acquire(callerOf(c.var.principal, clientAddressOf(c)));
    try {
      return c.json({ data: await authenticate(runner, message, raw, body) }, 200);
    } finally {
      release();
    }
  };
}

/**
 * The message endpoints: list an inbox's messages, read, delete, download an
 * attachment, the raw source (extension), and the spam and authentication
 * checks. Paths are relative to `/api/v1`.
 *
 * A message is visible exactly when its inbox is (`loadVisibleInbox`); any
 * other message answers 404 `message_not_found`, like one that does not exist.
 * The routes only read: a message is stored complete at intake (its HTML
 * sanitized, `cid:` images resolved), so no request writes to the store.
 */
export function createMessageRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  app.openapi(listMessagesRoute, listMessages(ctx));
  app.openapi(getMessageRoute, getMessage(ctx));
  app.openapi(deleteMessageRoute, deleteMessage(ctx));
  app.openapi(updateMessageRoute, updateMessage(ctx));
  app.openapi(getAttachmentRoute, getAttachment(ctx));
  app.openapi(getRawRoute, getRaw(ctx));
  // One caller can use up only its own share of each pool; the checks run where a bound can stop them (the node's pools).
  app.openapi(spamCheckRoute, spamCheck(ctx, ctx.pools.checks));
  app.openapi(authenticationCheckRoute, authenticationCheck(ctx, ctx.pools.checks, ctx.pools.analysis));
  return app;
}
