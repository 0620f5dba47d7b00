/**
 * The phones extension: `POST /phones` makes an inbox whose local part is a
 * free number of a fiction range; `POST /sms` texts one (the plain intake).
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { userOf } from '../auth/principal.ts';
import { planOf } from '../auth/plans.ts';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { clientAddressOf } from '../http/client-address.ts';
import { HttpError } from '../http/errors.ts';
import { toWireInbox } from '../http/present.ts';
import { createRouter } from '../http/router.ts';
import { allocatePhone } from '../sms/numbers.ts';
import { PHONE_COUNTRIES, phoneNumberAt, phoneRangeSize } from '../../wire/phones.ts';
import type { PhoneCountry } from '../../wire/phones.ts';
import type { InboxCap } from '../storage/contract/types.ts';
import { capOf, guestCapReached, newInboxFields } from './inboxes.handlers.ts';
import { createPhoneRoute, sendSmsRoute } from './phones.routes.ts';
import { segmentsOf } from '../sms/kit.ts';
import { smsReachOf, textPhone } from './sms-intake.ts';

/** A caller's share of a country's numbers: half of its country code's (NANP's US and CA together). */
function phoneShareOf(country: PhoneCountry): { countryCode: string; max: number; of: number } {
  const countryCode = countryCodeOf(country);
  const of = PHONE_COUNTRIES.filter((other) => countryCodeOf(other) === countryCode).reduce((sum, other) => sum + phoneRangeSize(other), 0);
  return { countryCode, max: Math.ceil(of / 2), of };
}

function countryCodeOf(country: PhoneCountry): string {
  return /^\+(1|61|33)/.exec(phoneNumberAt(country, 0))?.[0] ?? '+';
}

/** The phone routes (paths relative to `/api/v1`). */
export function createPhoneRoutes(ctx: ServerContext): OpenAPIHono<AppEnv> {
  const app = createRouter<AppEnv>();

  app.openapi(createPhoneRoute, async (c) => {
    const principal = c.var.principal;
    const body = c.req.valid('json') ?? {};
    const country = body.country ?? 'US';
    const plan = planOf(ctx.config, principal);
    const user = userOf(principal);
    const now = ctx.now();
    const domains = await ctx.store.listDomains();
    const domain = domains.find((d) => d.isDefault) ?? domains[0];
    if (!domain) throw new Error('inboxkit: no domain is configured');
    // Phones count as inboxes, within the same caps, held in the transaction that creates one;
    // and each caller holds at most its share of a country code's numbers, so that one cannot take them all.
    const inboxCap = capOf(ctx, principal, plan.entitlements.maxActiveInboxes);
    const share = phoneShareOf(country);
    const cap: InboxCap | undefined =
      principal.kind === 'operator' ? inboxCap : { count: user ? 'ownedBy' : 'guestsOfAddress', max: inboxCap?.max ?? Number.MAX_SAFE_INTEGER, prefix: { localPartPrefix: share.countryCode, max: share.max } };
    const creatorAddress = clientAddressOf(c);
    const { token, fields } = newInboxFields(ctx, { domainId: domain.id, ownerUserId: user?.id ?? null, label: body.label ?? null, ttlSeconds: plan.entitlements.inboxTtlSeconds, creatorAddress, now });
    const create = (inbox: Parameters<typeof ctx.store.createInbox>[0]) => (cap ? ctx.store.createInboxWithinCap(inbox, cap) : ctx.store.createInbox(inbox));
    const phone = await allocatePhone(create, country, fields);
    if (phone === 'cap_reached') {
      const held = user ? await ctx.store.countActiveInboxesByOwner(user.id, now) : await ctx.store.countActiveGuestInboxesByAddress(creatorAddress, now);
      if (inboxCap && held >= inboxCap.max) {
        if (inboxCap.count === 'ownedBy') throw new HttpError('plan_required', `The ${plan.name} plan allows ${inboxCap.max} active inboxes (phones count as inboxes); delete one first.`);
        throw guestCapReached(creatorAddress, inboxCap.max);
      }
      throw new HttpError('limit_reached', `This caller holds ${share.max} active phones with ${share.countryCode} numbers, its share of the country code's ${share.of} (half, so that no caller can take every number); delete phones it no longer needs.`, { 'Retry-After': '60' });
    }
    if (!phone) {
      throw new HttpError('limit_reached', `Every ${country} phone number of this service is in use by an active phone; delete phones you no longer need, or ask for another country (US, CA, AU, FR).`, { 'Retry-After': '60' });
    }
    ctx.bus.publish({ type: 'inbox.created', inboxId: phone.id });
    return c.json({ data: { ...toWireInbox(phone), token, phoneNumber: phone.localPart, country } }, 200);
  });

  app.openapi(sendSmsRoute, async (c) => {
    const reach = smsReachOf(c, ctx);
    if (!reach) {
      throw new HttpError('unauthorized', 'This shared service takes SMS from API keys only: send Authorization: Bearer <API key> (or the phone\'s X-Inbox-Token).');
    }
    const body = c.req.valid('json');
    const { outcome } = await textPhone(c, ctx, reach, { to: body.to, from: body.from ?? 'inboxkit', body: body.text, provider: 'inboxkit', providerId: randomUUID() });
    const answer = { to: body.to, segments: segmentsOf(body.text) };
    switch (outcome.status) {
      case 'unknown':
        throw new HttpError('inbox_not_found', `No active phone ${body.to} that this caller may text: numbers come from POST /phones and go when the phone is deleted or expires.`);
      case 'refused':
        if (outcome.fault.class === 'opted_out') throw new HttpError('recipient_opted_out', `to: ${body.to} has opted out of texts (a fault set on this phone with failSms('unsubscribed')); nothing was stored.`);
        throw new HttpError('validation_error', `to: ${body.to} is not a number a network can reach (a fault set on this phone with failSms('invalid')); nothing was stored.`);
      case 'undelivered':
        return c.json({ data: { ...answer, inboxId: outcome.inboxId, messageId: null, seq: null, status: 'undelivered' as const } }, 200);
      case 'queued':
        return c.json({ data: { ...answer, inboxId: outcome.inboxId, messageId: null, seq: null, status: 'queued' as const } }, 200);
      default:
        return c.json({ data: { ...answer, inboxId: outcome.inboxId, messageId: outcome.message.id, seq: outcome.message.seq, status: 'delivered' as const } }, 200);
    }
  });

  return app;
}
