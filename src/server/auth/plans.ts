/**
 * The plans of the local service and what they allow: the defaults, and the
 * plan a caller gets.
 *
 * @packageDocumentation
 */
import type { Entitlements, Plan } from '../../wire/schemas.ts';
import { ownCapsOf } from './principal.ts';
import type { Principal } from './principal.ts';

/** The plan ids of the local service. */
export type PlanId = 'guest' | 'premium';

/** Options that shape the plans; each replaces the matching default. */
export interface PlanOptions {
  /** Entitlements of anonymous and inbox-token callers. */
  guest?: Partial<Entitlements>;
  /** Entitlements of users (API key or session). */
  premium?: Partial<Entitlements>;
}

const DAY = 86_400;

/** The local defaults (entitlements as the plans give them before any option): generous (a local anonymous user may create custom addresses and forward). */
export function defaultPlans(maxMessageBytes: number): Record<PlanId, Plan> {
  return {
    guest: {
      id: 'guest',
      name: 'Guest',
      entitlements: {
        apiKeys: false,
        customAddresses: true,
        forwarding: true,
        maxActiveInboxes: null,
        inboxTtlSeconds: DAY,
        maxMessageBytes,
        requestsPerMinute: 6000,
      },
    },
    premium: {
      id: 'premium',
      name: 'Premium',
      entitlements: {
        apiKeys: true,
        customAddresses: true,
        forwarding: true,
        maxActiveInboxes: null,
        inboxTtlSeconds: 7 * DAY,
        maxMessageBytes,
        requestsPerMinute: 6000,
      },
    },
  };
}

/**
 * The plan of a principal: guest for anonymous and inbox-token callers, the
 * user's plan otherwise; for an API key with caps of its own (`inboxkit keys
 * create --max-inboxes … --requests-per-minute …`), those replace the plan's.
 */
export function planOf(config: { plans: Record<PlanId, Plan> }, principal: Principal): Plan {
  if (principal.kind === 'apiKey' || principal.kind === 'session') {
    const plan = config.plans[principal.user.planId as PlanId] ?? config.plans.premium;
    const caps = ownCapsOf(principal);
    if (caps?.maxInboxes === undefined && caps?.requestsPerMinute === undefined) return plan;
    return {
      ...plan,
      name: `${plan.name} (this API key's caps)`,
      entitlements: {
        ...plan.entitlements,
        maxActiveInboxes: caps.maxInboxes ?? plan.entitlements.maxActiveInboxes,
        requestsPerMinute: caps.requestsPerMinute ?? plan.entitlements.requestsPerMinute,
      },
    };
  }
  return config.plans.guest;
}
