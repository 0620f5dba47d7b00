/**
 * SES's events through SNS, as apps subscribe to them: a configuration set
 * (`CreateConfigurationSet`) with an SNS event destination
 * (`CreateConfigurationSetEventDestination`, a topic of the SNS endpoint),
 * and a send naming the set (`ConfigurationSetName`) publishes a `Send`
 * event, then each recipient's `Delivery`, `Bounce` or `DeliveryDelay`, to
 * the destination's topic: each one a signed SNS `Notification` to the
 * topic's confirmed subscriptions, through the node's bounded webhook
 * sender, charged to the caller.
 *
 * @packageDocumentation
 */
import type { ServerContext } from '../context/context.ts';
import { parseEventDestination, sesRecipientEvent, sesSendEvent } from '../email/ses-events.ts';
import type { SesConfigurationSets, SesEventMail, SesRecipientOutcome } from '../email/ses-events.ts';
import { sesError } from '../email/ses.ts';
import type { SesAnswer } from '../email/ses.ts';
import type { RecipientCheck } from '../intake/types.ts';
import { publishToTopic } from '../sms/sns-notify.ts';
import type { SnsTopics } from '../sms/sns-topics.ts';
import { snsPosterOf } from './sms-sns-topics.handlers.ts';

/** SNS's subject of SES's event notifications. */
const SUBJECT = 'Amazon SES Email Event Notification';

type Json = Record<string, unknown>;

/** What the event calls need: the caller, its sets and its topics. */
export interface SesEventScope {
  owner: string;
  sets: SesConfigurationSets;
  topics: SnsTopics;
}

/** `CreateConfigurationSet`. */
export function createConfigurationSet(scope: SesEventScope, json: Json): SesAnswer {
  const name = typeof json.ConfigurationSetName === 'string' ? json.ConfigurationSetName : '';
  if (name === '') return sesError(400, 'BadRequestException', 'Missing required field: ConfigurationSetName.');
  const refused = scope.sets.create(scope.owner, name);
  if (refused) return sesError(400, refused.type, refused.error);
  return { status: 200, body: {} };
}

/** `CreateConfigurationSetEventDestination`: an SNS destination whose topic the caller holds. */
export function createEventDestination(scope: SesEventScope, setName: string, json: Json): SesAnswer {
  const destination = parseEventDestination(json.EventDestinationName, json.EventDestination);
  if ('error' in destination) return sesError(400, 'BadRequestException', destination.error);
  if (!scope.topics.get(scope.owner, destination.topicArn)) return sesError(400, 'BadRequestException', `Could not access SNS topic ${destination.topicArn}: it is not a topic this caller created with the SNS endpoint's CreateTopic (INBOXKIT_SNS_ENDPOINT).`);
  const refused = scope.sets.addDestination(scope.owner, setName, destination);
  if (refused) return sesError(refused.type === 'NotFoundException' ? 404 : 400, refused.type, refused.error);
  return { status: 200, body: {} };
}

/** The error of a send naming a configuration set the caller does not hold, or null. */
export function configurationSetProblem(scope: SesEventScope, name: unknown): SesAnswer | null {
  if (name === undefined || name === null || name === '') return null;
  if (typeof name === 'string' && scope.sets.get(scope.owner, name)) return null;
  return sesError(404, 'NotFoundException', `Configuration set <${String(name)}> does not exist (CreateConfigurationSet first).`);
}

/** A recipient's outcome as SES's events report it, or null for one the service does not hold (no event). */
function outcomeOf(check: RecipientCheck): SesRecipientOutcome | null {
  if (check.verdict === 'accepted') return { type: 'DELIVERY', recipient: check.recipient };
  if (check.verdict === 'unknown') return null;
  const diagnostic = `smtp; ${check.fault.code} ${check.fault.text}`;
  const status = /\b[245]\.\d{1,3}\.\d{1,3}\b/.exec(check.fault.text)?.[0] ?? (check.fault.code >= 500 ? '5.0.0' : '4.0.0');
  if (check.verdict === 'undeliverable' && check.fault.class === 'temporary') return { type: 'DELIVERY_DELAY', recipient: check.recipient, status, diagnostic };
  return { type: 'BOUNCE', recipient: check.recipient, subType: check.verdict === 'refused' ? 'Suppressed' : 'General', status, diagnostic };
}

/** Publishes a send's events to each enabled destination of its set whose types match. */
export function publishSesEvents(ctx: ServerContext, scope: SesEventScope, mail: SesEventMail, checks: readonly RecipientCheck[]): void {
  const destinations = (scope.sets.get(scope.owner, mail.configurationSet) ?? []).filter((d) => d.enabled);
  if (destinations.length === 0) return;
  const events: Array<{ type: string; json: Json }> = [{ type: 'SEND', json: sesSendEvent(mail) }];
  for (const check of checks) {
    const outcome = outcomeOf(check);
    if (outcome) events.push({ type: outcome.type, json: sesRecipientEvent(mail, outcome) });
  }
  const poster = snsPosterOf(ctx);
  for (const destination of destinations) {
    const topic = scope.topics.get(scope.owner, destination.topicArn);
    if (!topic) continue;
    for (const event of events.filter((e) => destination.types.has(e.type))) publishToTopic(poster, topic, SUBJECT, JSON.stringify(event.json));
  }
}
