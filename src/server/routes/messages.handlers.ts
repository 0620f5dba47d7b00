/**
 * The message endpoints' behaviour (definitions in `messages.routes.ts`).
 *
 * @packageDocumentation
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { loadVisibleInbox } from '../auth/visibility.ts';
import type { Principal } from '../auth/principal.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { HttpError } from '../http/errors.ts';
import { createRouter } from '../http/router.ts';
import { contentDisposition, toMessage, toMessageSummary } from '../http/present.ts';
import { InvalidCursorError } from '../storage/contract/cursor.ts';
import type { MessageRecord } from '../storage/contract/types.ts';
import { authenticationCheckRoute, deleteMessageRoute, getAttachmentRoute, getMessageRoute, getRawRoute, listMessagesRoute, spamCheckRoute } from './messages.routes.ts';
import { MAX_SCANS_IN_FLIGHT, SpamCheckError } from '../spam/scanner.ts';
import { createFairShare, shareCallerOf } from '../auth/fair-share.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { AuthenticationCheckError, checkAuthentication } from '../checks/authentication.ts';
import { TestDnsError } from '../checks/test-dns.ts';
import type { AuthenticationCheck, AuthenticationCheckRequest } from '../../wire/authentication-check.ts';

/** Longest an authentication check may take. */
const AUTHENTICATION_TIMEOUT_MS = 10_000;
/** Most authentication checks one node runs at once, and one caller's share of them; more are refused at once, never queued. */
const AUTHENTICATION_CHECKS = { name: 'authentication checks', total: 8, perCaller: 4 };
/** Most spam checks one node runs at once (its scanner's own bound), and one caller's share of them. */
const SPAM_CHECKS = { name: 'spam checks', total: MAX_SCANS_IN_FLIGHT, perCaller: MAX_SCANS_IN_FLIGHT / 2 };

/** Headers that keep a download from being rendered or sniffed as a page of the API's origin. */
const DOWNLOAD_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cache-Control': 'private, no-store',
};

/**
 * The authentication check of a stored message against the body's test DNS;
 * the envelope recorded at intake is the SMTP session unless the body overrides it.
 */
async function authenticate(message: MessageRecord, raw: Uint8Array, body: AuthenticationCheckRequest): Promise<AuthenticationCheck> {
  const envelope = message.envelope ?? null;
  const session = {
    mailFrom: body.mailFrom ?? envelope?.mailFrom ?? '',
    clientAddress: body.clientAddress ?? envelope?.clientAddress ?? '127.0.0.1',
    helo: body.helo ?? envelope?.helo ?? null,
  };
  try {
    return await checkAuthentication({ raw, dns: body.dns, session, trustReceived: envelope === null, timeoutMs: AUTHENTICATION_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof TestDnsError) throw new HttpError('validation_error', `${error.message} (see docs/email-checks.md).`);
    if (!(error instanceof AuthenticationCheckError)) throw error;
    if (error.kind === 'unavailable') throw new HttpError('authentication_unavailable', error.message);
    throw new HttpError('authentication_failed', `The authentication check failed: ${error.message}; send a smaller test DNS (an SPF record that includes many others is a likely cause).`);
  }
}

/**
 * The message endpoints: list an inbox's messages, read, delete, download an
 * attachment, and the raw source (extension). Paths are relative to `/api/v1`.
 *
 * A message is visible exactly when its inbox is (`loadVisibleInbox`); any
 * other message answers 404 `message_not_found`, like one that does not exist.
 * The routes only read: a message is stored complete at intake (its HTML
 * sanitized, `cid:` images resolved), so no request writes to the store.
 */
export function createMessageRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  // One caller can use up only its own share of each pool (src/server/auth/fair-share.ts).
  const authenticationChecks = createFairShare(AUTHENTICATION_CHECKS);
  const spamChecks = createFairShare(SPAM_CHECKS);

  /** The message, if the caller may see it; otherwise 404 message_not_found. */
  const loadVisibleMessage = async (principal: Principal, id: string): Promise<MessageRecord> => {
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
  };

  app.openapi(listMessagesRoute, async (c) => {
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
  });

  app.openapi(getMessageRoute, async (c) => {
    const message = await loadVisibleMessage(c.var.principal, c.req.valid('param').id);
    return c.json({ data: toMessage(message) }, 200);
  });

  app.openapi(deleteMessageRoute, async (c) => {
    const message = await loadVisibleMessage(c.var.principal, c.req.valid('param').id);
    if (!(await ctx.store.deleteMessage(message.id))) {
      throw new HttpError('message_not_found', `No message ${JSON.stringify(message.id)}: it was deleted meanwhile.`);
    }
    return c.json({ data: { id: message.id, deleted: true as const } }, 200);
  });

  app.openapi(getAttachmentRoute, async (c) => {
    const { id, attachmentId } = c.req.valid('param');
    const message = await loadVisibleMessage(c.var.principal, id);
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
  });

  app.openapi(getRawRoute, async (c) => {
    const message = await loadVisibleMessage(c.var.principal, c.req.valid('param').id);
    const raw = await ctx.store.findRaw(message.id);
    if (!raw) throw new HttpError('message_not_found', `The raw source of message ${JSON.stringify(message.id)} is gone: it was deleted meanwhile.`);
    return new Response(raw as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: {
        'Content-Type': 'message/rfc822',
        'Content-Length': String(raw.byteLength),
        'Content-Disposition': contentDisposition(`${message.id}.eml`, 'inline'),
        ...DOWNLOAD_HEADERS,
      },
    });
  });

  app.openapi(spamCheckRoute, async (c) => {
    const message = await loadVisibleMessage(c.var.principal, c.req.valid('param').id);
    const scanner = ctx.spamScanner;
    if (!scanner) {
      throw new HttpError(
        'spam_check_unavailable',
        'This service has no spam scanner: start it with --spam-check spamd://127.0.0.1:783 (inboxkit serve) or spamCheck (inboxkitServer), with SpamAssassin\'s spamd running there (Debian: apt-get install spamd; see docs/email-checks.md).',
      );
    }
    const raw = await ctx.store.findRaw(message.id);
    if (!raw) throw new HttpError('message_not_found', `The raw source of message ${JSON.stringify(message.id)} is gone: it was deleted meanwhile.`);
    const release = spamChecks.acquire(shareCallerOf(c.var.principal, clientAddressOf(c)));
    try {
      return c.json({ data: await scanner.check(raw) }, 200);
    } catch (error) {
      if (!(error instanceof SpamCheckError)) throw error;
      ctx.logger.warn({ err: error, scanner: scanner.url }, 'spam check failed');
      throw new HttpError('spam_check_failed', `The spam check failed: ${error.message}. Check that the scanner runs at ${scanner.url} (see docs/email-checks.md).`);
    } finally {
      release();
    }
  });

  app.openapi(authenticationCheckRoute, async (c) => {
    const message = await loadVisibleMessage(c.var.principal, c.req.valid('param').id);
    const body = c.req.valid('json');
    const raw = await ctx.store.findRaw(message.id);
    if (!raw) throw new HttpError('message_not_found', `The raw source of message ${JSON.stringify(message.id)} is gone: it was deleted meanwhile.`);
    const release = authenticationChecks.acquire(shareCallerOf(c.var.principal, clientAddressOf(c)));
    try {
      return c.json({ data: await authenticate(message, raw, body) }, 200);
    } finally {
      release();
    }
  });

  return app;
}
