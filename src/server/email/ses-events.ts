/**
 * SES's configuration sets and their SNS event destinations, as an app makes
 * them (SESv2 `CreateConfigurationSet`, `CreateConfigurationSetEventDestination`;
 * v1's `CreateConfigurationSet`, `CreateConfigurationSetEventDestination`),
 * and the event records SES publishes for a send that names the set: `Send`,
 * `Delivery`, `Bounce` (permanent: an inbox's `undeliverable` or suppressed
 * fault), `DeliveryDelay` (a lasting `4xx`), in SES's event-publishing JSON
 * (`eventType`, `mail`, and the event's own object).
 *
 * Configuration sets belong to the caller that made them, per node, within bounds.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';

/** SES's event types (v2's names) the service publishes. */
export const SES_EVENT_TYPES = ['SEND', 'DELIVERY', 'BOUNCE', 'DELIVERY_DELAY'] as const;
/** Every event type SES accepts in `MatchingEventTypes` (the others are accepted, never published here). */
const KNOWN_EVENT_TYPES = new Set(['SEND', 'REJECT', 'BOUNCE', 'COMPLAINT', 'DELIVERY', 'OPEN', 'CLICK', 'RENDERING_FAILURE', 'DELIVERY_DELAY', 'SUBSCRIPTION']);
/** Configuration sets one caller keeps, per node. */
export const MAX_CONFIGURATION_SETS_PER_CALLER = 100;
/** Event destinations one configuration set keeps (SES's own limit is 10). */
export const MAX_EVENT_DESTINATIONS = 10;

/** An event destination publishing to an SNS topic. */
export interface SesEventDestination {
  name: string;
  enabled: boolean;
  /** v2's names (`SEND`, `DELIVERY` …). */
  types: Set<string>;
  topicArn: string;
}

/** The caller's configuration sets on this node. */
export interface SesConfigurationSets {
  /** Makes a set; the reason it cannot, else (`AlreadyExists`, a bound). */
  create(owner: string, name: string): { error: string; type: string } | null;
  /** The destinations of the caller's set, or null when it has none of that name. */
  get(owner: string, name: string): SesEventDestination[] | null;
  /** Adds a destination to the caller's set; the reason it cannot, else. */
  addDestination(owner: string, name: string, destination: SesEventDestination): { error: string; type: string } | null;
}

/** Makes the configuration sets of one node. */
export function createSesConfigurationSets(): SesConfigurationSets {
  const sets = new Map<string, Map<string, SesEventDestination[]>>();
  return {
    create(owner, name) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) return { type: 'BadRequestException', error: `Invalid configuration set name ${JSON.stringify(name)}: use 1 to 64 letters, digits, hyphens and underscores.` };
      const own = sets.get(owner) ?? new Map<string, SesEventDestination[]>();
      if (own.has(name)) return { type: 'AlreadyExistsException', error: `Configuration set <${name}> already exists.` };
      if (own.size >= MAX_CONFIGURATION_SETS_PER_CALLER) return { type: 'LimitExceededException', error: `This caller holds ${MAX_CONFIGURATION_SETS_PER_CALLER} configuration sets on this node, its bound.` };
      own.set(name, []);
      sets.set(owner, own);
      return null;
    },
    get: (owner, name) => sets.get(owner)?.get(name) ?? null,
    addDestination(owner, name, destination) {
      const destinations = sets.get(owner)?.get(name);
      if (!destinations) return { type: 'NotFoundException', error: `Configuration set <${name}> does not exist.` };
      if (destinations.some((d) => d.name === destination.name)) return { type: 'AlreadyExistsException', error: `Event destination ${destination.name} already exists in configuration set <${name}>.` };
      if (destinations.length >= MAX_EVENT_DESTINATIONS) return { type: 'LimitExceededException', error: `Configuration set <${name}> has ${MAX_EVENT_DESTINATIONS} event destinations, its bound.` };
      destinations.push(destination);
      return null;
    },
  };
}

type Json = Record<string, unknown>;

/** Reads v2's `EventDestination` (`Enabled`, `MatchingEventTypes`, `SnsDestination.TopicArn`), or the error naming what is wrong. */
export function parseEventDestination(name: unknown, body: unknown): SesEventDestination | { error: string } {
  const json = (typeof body === 'object' && body !== null ? body : {}) as Json;
  if (typeof name !== 'string' || name === '') return { error: 'Missing required field: EventDestinationName.' };
  const types = Array.isArray(json.MatchingEventTypes) ? json.MatchingEventTypes.map((t) => String(t).toUpperCase()) : [];
  if (types.length === 0) return { error: 'Missing required field: EventDestination.MatchingEventTypes.' };
  const unknown = types.find((t) => !KNOWN_EVENT_TYPES.has(t));
  if (unknown) return { error: `Invalid event type ${unknown}: use ${[...KNOWN_EVENT_TYPES].join(', ')}.` };
  const topicArn = (json.SnsDestination as Json | undefined)?.TopicArn;
  if (typeof topicArn !== 'string' || topicArn === '') return { error: "inboxkit's SES publishes events to SNS only: give EventDestination.SnsDestination.TopicArn (a topic made with the SNS endpoint's CreateTopic)." };
  return { name, enabled: json.Enabled !== false, types: new Set(types), topicArn };
}

/** What an event is about: the send. */
export interface SesEventMail {
  messageId: string;
  source: string;
  destination: string[];
  subject: string;
  configurationSet: string;
  tags: string[];
}

/** One recipient's outcome, as its event reports it. */
export type SesRecipientOutcome =
  | { type: 'DELIVERY'; recipient: string }
  | { type: 'BOUNCE'; recipient: string; subType: 'General' | 'Suppressed'; status: string; diagnostic: string }
  | { type: 'DELIVERY_DELAY'; recipient: string; status: string; diagnostic: string };

function mailOf(mail: SesEventMail, at: string): Json {
  const tags: Record<string, string[]> = { 'ses:configuration-set': [mail.configurationSet] };
  for (const tag of mail.tags) {
    const [name = '', value = ''] = tag.split(/=(.*)/s);
    tags[name] = [value];
  }
  return {
    timestamp: at,
    source: mail.source,
    sendingAccountId: '000000000000',
    messageId: mail.messageId,
    destination: mail.destination,
    headersTruncated: false,
    commonHeaders: { from: [mail.source], to: mail.destination, messageId: mail.messageId, subject: mail.subject },
    tags,
  };
}

/** SES's `eventType` of a v2 event type name (`DELIVERY_DELAY` → `DeliveryDelay`). */
function eventTypeOf(type: string): string {
  return type.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u: string, ch: string) => ch.toUpperCase());
}

/** The `Send` event of a send. */
export function sesSendEvent(mail: SesEventMail): Json {
  return { eventType: 'Send', mail: mailOf(mail, new Date().toISOString()), send: {} };
}

/** The event of one recipient's outcome. */
export function sesRecipientEvent(mail: SesEventMail, outcome: SesRecipientOutcome): Json {
  const at = new Date().toISOString();
  const event: Json = { eventType: eventTypeOf(outcome.type), mail: mailOf(mail, at) };
  if (outcome.type === 'DELIVERY') {
    event.delivery = { timestamp: at, processingTimeMillis: 0, recipients: [outcome.recipient], smtpResponse: '250 2.0.0 OK (inboxkit: stored in the inbox)', reportingMTA: 'inboxkit' };
  } else if (outcome.type === 'BOUNCE') {
    const bouncedRecipients = [{ emailAddress: outcome.recipient, action: 'failed', status: outcome.status, diagnosticCode: outcome.diagnostic }];
    event.bounce = { bounceType: 'Permanent', bounceSubType: outcome.subType, bouncedRecipients, timestamp: at, feedbackId: randomUUID(), reportingMTA: 'dns; inboxkit' };
  } else {
    event.deliveryDelay = { timestamp: at, delayType: 'TransientCommunicationFailure', expirationTime: new Date(Date.now() + 86_400_000).toISOString(), delayedRecipients: [{ emailAddress: outcome.recipient, status: outcome.status, diagnosticCode: outcome.diagnostic }] };
  }
  return event;
}
