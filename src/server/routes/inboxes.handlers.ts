/**
 * Inboxes: create, list, read, update, delete.
 *
 * @packageDocumentation
 */
import { randomBytes } from 'node:crypto';
import type { OpenAPIHono, RouteHandler } from '@hono/zod-openapi';
import { userOf } from '../auth/principal.ts';
import type { Principal } from '../auth/principal.ts';
import { INBOX_TOKEN_PREFIX, newSecret } from '../auth/secrets.ts';
import { isActive, listVisibleInboxes, loadVisibleInbox, requireCredential } from '../auth/visibility.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { planOf } from '../auth/plans.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { HttpError } from '../http/errors.ts';
import { addressOf, toWireInbox } from '../http/present.ts';
import { createRouter } from '../http/router.ts';
import { INBOX_CURSOR, decodeCursor } from '../storage/contract/cursor.ts';
import type { DomainRecord, InboxCap } from '../storage/contract/types.ts';
import { createInboxRoute, deleteInboxRoute, getInboxRoute, listInboxesRoute, updateInboxRoute } from './inboxes.routes.ts';

const LOCAL_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A random local part: 12 lowercase letters and digits, starting with a letter. */
function randomLocalPart(): string {
  const bytes = randomBytes(12);
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const alphabet = i === 0 ? 26 : LOCAL_ALPHABET.length;
    out += LOCAL_ALPHABET[(bytes[i] ?? 0) % alphabet];
  }
  return out;
}

/** Refuses a guest's forwarding unless the address's domain is an allowed one (`--forward-allow`) or below one. */
function checkGuestForward(address: string, allowed: readonly string[]): void {
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase().replace(/\.$/, '');
  if (allowed.some((d) => domain === d || domain.endsWith(`.${d}`))) return;
  throw new HttpError(
    'plan_required',
    `Guests may not forward through this server's relay to ${JSON.stringify(domain)}: ` +
      (allowed.length === 0
        ? 'forwarding is for API-key users only; send an API key, or start the server with --forward-allow DOMAIN.'
        : `guests may forward to ${allowed.join(', ')} only (--forward-allow); send an API key for other domains.`),
  );
}

/** The refusal of a new guest inbox (or phone) when its client address already holds the cap of active ones. */
export function guestCapReached(address: string, cap: number): HttpError {
  return new HttpError(
    'limit_reached',
    `Too many active guest inboxes from ${address}: the cap is ${cap} (guest inboxes per client address; inboxkit serve --max-guest-inboxes-per-address). Delete inboxes you no longer need, or use an API key.`,
    { 'Retry-After': '60' },
  );
}

/**
 * A new inbox's token and stored fields (the token only as its hash), for
 * `POST /inboxes` and `POST /phones` alike.
 */
export function newInboxFields(
  ctx: ServerContext,
  given: { domainId: string; ownerUserId: string | null; label: string | null; ttlSeconds: number | null; creatorAddress: string; now: number },
): { token: string; fields: Omit<Parameters<ServerContext['store']['createInbox']>[0], 'localPart'> } {
  const token = newSecret(INBOX_TOKEN_PREFIX);
  const { domainId, ownerUserId, label, ttlSeconds, creatorAddress, now } = given;
  return { token, fields: { domainId, ownerUserId, label, tokenHash: ctx.hash(token), createdAt: now, expiresAt: ttlSeconds === null ? null : now + ttlSeconds * 1000, creatorAddress } };
}

/** The domain a new inbox is made on: the one asked for, else the default (else the first). */
async function pickDomain(ctx: ServerContext, domainId: string | undefined): Promise<DomainRecord> {
  if (domainId !== undefined) {
    const domain = await ctx.store.findDomainById(domainId);
    if (!domain) throw new HttpError('domain_not_found', `No domain ${JSON.stringify(domainId)}; GET /domains lists the domain ids.`);
    return domain;
  }
  const domains = await ctx.store.listDomains();
  const domain = domains.find((d) => d.isDefault) ?? domains[0] ?? null;
  if (!domain) throw new Error('inboxkit: no domain is configured');
  return domain;
}

/**
 * The cap a new inbox must stay within, kept by the store in the transaction
 * that inserts it (so concurrent creates on every node never pass it): the
 * plan's active inboxes for a user, the guest-inbox cap of the client address
 * for a guest; none for the operator.
 */
export function capOf(ctx: ServerContext, principal: Principal, maxActive: number | null): InboxCap | undefined {
  if (userOf(principal)) return maxActive === null ? undefined : { count: 'ownedBy', max: maxActive };
  if (principal.kind === 'operator') return undefined;
  const cap = ctx.config.bounds.maxGuestInboxesPerAddress;
  return cap === null ? undefined : { count: 'guestsOfAddress', max: cap };
}

/** `POST /inboxes`: a new inbox (a random address unless the plan allows a chosen local part) and its token, shown once. */
function createInbox(ctx: ServerContext): RouteHandler<typeof createInboxRoute, AppEnv> {
  return async (c) => {
    const principal = c.var.principal;
    const body = c.req.valid('json') ?? {};
    const plan = planOf(ctx.config, principal);
    const user = userOf(principal);
    const now = ctx.now();

    if (body.localPart !== undefined && !plan.entitlements.customAddresses) {
      throw new HttpError('plan_required', `The ${plan.name} plan does not include custom addresses; omit localPart for a random address.`);
    }
    const domain = await pickDomain(ctx, body.domainId);
    const max = plan.entitlements.maxActiveInboxes;
    const cap = capOf(ctx, principal, max);
    const creatorAddress = clientAddressOf(c);

    const { token, fields } = newInboxFields(ctx, { domainId: domain.id, ownerUserId: user?.id ?? null, label: body.label ?? null, ttlSeconds: plan.entitlements.inboxTtlSeconds, creatorAddress, now });
    // A random local part collides with odds of 36^-11; retry a few times anyway.
    for (let attempt = 0; attempt < 5; attempt++) {
      const inbox = { ...fields, localPart: body.localPart ?? randomLocalPart() };
      const created = cap ? await ctx.store.createInboxWithinCap(inbox, cap) : await ctx.store.createInbox(inbox);
      if (created === 'cap_reached') {
        if (cap?.count === 'ownedBy') throw new HttpError('plan_required', `The ${plan.name} plan allows ${cap.max} active inboxes; delete one first.`);
        throw guestCapReached(creatorAddress, cap?.max ?? 0);
      }
      if (created !== 'address_taken') {
        ctx.bus.publish({ type: 'inbox.created', inboxId: created.id });
        return c.json({ data: { ...toWireInbox(created), token } }, 200);
      }
      if (body.localPart !== undefined) {
        throw new HttpError('address_taken', `${addressOf(body.localPart, domain.domain)} is already in use; choose another localPart.`);
      }
    }
    throw new Error('inboxkit: could not find a free random address after 5 attempts');
  };
}

/** `GET /inboxes`: the caller's active inboxes, a page at a time (an inbox token sees its own inbox). */
function listInboxes(ctx: ServerContext): RouteHandler<typeof listInboxesRoute, AppEnv> {
  return async (c) => {
    const principal = c.var.principal;
    requireCredential(principal);
    const { cursor, limit } = c.req.valid('query');
    if (principal.kind === 'inboxToken') {
      // The one-item list has no next page, but a cursor is read as strictly as with a key.
      if (cursor !== undefined) decodeCursor(INBOX_CURSOR, cursor);
      const inbox = await ctx.store.findInboxById(principal.inboxId);
      const items = inbox && isActive(inbox, ctx.now()) ? [toWireInbox(inbox)] : [];
      return c.json({ data: { items: cursor ? [] : items, nextCursor: null } }, 200);
    }
    const page = await listVisibleInboxes(ctx, principal, { cursor: cursor ?? null, limit });
    return c.json({ data: { items: page.items.map(toWireInbox), nextCursor: page.nextCursor } }, 200);
  };
}

/** `GET /inboxes/{id}`. */
function getInbox(ctx: ServerContext): RouteHandler<typeof getInboxRoute, AppEnv> {
  return async (c) => {
    const inbox = await loadVisibleInbox(ctx, c.var.principal, c.req.valid('param').id);
    return c.json({ data: toWireInbox(inbox) }, 200);
  };
}

/** `PATCH /inboxes/{id}`: its label, or its forwarding address (when a relay is configured and the plan allows it). */
function updateInbox(ctx: ServerContext): RouteHandler<typeof updateInboxRoute, AppEnv> {
  return async (c) => {
    const principal = c.var.principal;
    const inbox = await loadVisibleInbox(ctx, principal, c.req.valid('param').id);
    const body = c.req.valid('json');
    if (body.forwardTo !== undefined && body.forwardTo !== null) {
      if (ctx.config.relayUrl === null) {
        throw new HttpError('forwarding_unavailable', 'This server has no SMTP relay configured, so it cannot forward mail. Start it with a relay URL (--relay-url), or leave forwardTo out.');
      }
      const plan = planOf(ctx.config, principal);
      if (!plan.entitlements.forwarding) throw new HttpError('plan_required', `The ${plan.name} plan does not include forwarding.`);
      if (!userOf(principal) && principal.kind !== 'operator') checkGuestForward(body.forwardTo, ctx.config.bounds.forwardAllow);
    }
    const patch: { label?: string | null; forwardTo?: string | null } = {};
    if (body.label !== undefined) patch.label = body.label;
    if (body.forwardTo !== undefined) patch.forwardTo = body.forwardTo;
    const updated = await ctx.store.updateInbox(inbox.id, patch);
    if (!updated) throw new HttpError('inbox_not_found', `Inbox ${JSON.stringify(inbox.id)} was deleted meanwhile.`);
    return c.json({ data: toWireInbox(updated) }, 200);
  };
}

/** `DELETE /inboxes/{id}`: the inbox and its messages; its open streams hear `inbox.deleted`. */
function deleteInbox(ctx: ServerContext): RouteHandler<typeof deleteInboxRoute, AppEnv> {
  return async (c) => {
    const inbox = await loadVisibleInbox(ctx, c.var.principal, c.req.valid('param').id);
    const result = await ctx.store.deleteInbox(inbox.id);
    if (!result) throw new HttpError('inbox_not_found', `Inbox ${JSON.stringify(inbox.id)} was deleted meanwhile.`);
    ctx.bus.publish({ type: 'inbox.deleted', inboxId: inbox.id });
    return c.json({ data: { id: inbox.id, deleted: true as const, messagesDeleted: result.messagesDeleted } }, 200);
  };
}

/** The inbox routes (paths relative to `/api/v1`). */
export function createInboxRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();
  app.openapi(createInboxRoute, createInbox(ctx));
  app.openapi(listInboxesRoute, listInboxes(ctx));
  app.openapi(getInboxRoute, getInbox(ctx));
  app.openapi(updateInboxRoute, updateInbox(ctx));
  app.openapi(deleteInboxRoute, deleteInbox(ctx));
  return app;
}
