/**
 * SNS topics at `/sms/sns`, as an app subscribes to SES's event
 * notifications with `@aws-sdk/client-sns`: `CreateTopic`,
 * `SetTopicAttributes` (`SignatureVersion`), `Subscribe` of an HTTP(S)
 * endpoint (SNS posts the signed `SubscriptionConfirmation` to it),
 * `ConfirmSubscription` (or a GET of the `SubscribeURL`), `Unsubscribe` (or a
 * GET of a notification's `UnsubscribeURL`), and `Publish` to a `TopicArn`
 * the caller holds. The signing certificate's PEM is at
 * `GET /sms/sns/SigningCert.pem`, for the app to trust (see
 * `sms/sns-signing.ts`).
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { AppEnv, ServerContext } from '../context/context.ts';
import { formField } from '../sms/kit.ts';
import type { ParsedForm } from '../sms/kit.ts';
import { snsError, snsResult } from '../sms/sns.ts';
import type { SnsAnswer } from '../sms/sns.ts';
import { postConfirmation, publishToTopic } from '../sms/sns-notify.ts';
import type { SnsPoster } from '../sms/sns-notify.ts';
import { regionOf } from '../sms/sns-topics.ts';
import type { SnsTopics } from '../sms/sns-topics.ts';
import { templateOwnerOf } from './email-templates.handlers.ts';

/** The SNS actions on topics this file serves. */
export const SNS_TOPIC_ACTIONS = ['CreateTopic', 'SetTopicAttributes', 'Subscribe', 'ConfirmSubscription', 'Unsubscribe', 'Publish'] as const;

/** The Query protocol's map entries (`Attributes.entry.N.key` / `.value`). */
function attributesOf(form: ParsedForm): Map<string, string> {
  const attributes = new Map<string, string>();
  for (let n = 1; n <= 20; n++) {
    const key = formField(form, `Attributes.entry.${n}.key`);
    if (key === '') break;
    attributes.set(key, formField(form, `Attributes.entry.${n}.value`));
  }
  return attributes;
}

function signatureVersionOf(value: string | undefined): '1' | '2' | SnsAnswer {
  if (value === undefined || value === '1' || value === '2') return value === '2' ? '2' : '1';
  return snsError(400, 'InvalidParameter', `Invalid parameter: Attributes Reason: SignatureVersion must be 1 or 2, got ${value}`);
}

/** The poster of SNS's signed posts on this node. */
export function snsPosterOf(ctx: ServerContext): SnsPoster {
  return { sender: ctx.webhooks, signing: ctx.snsSigning, log: ctx.logger };
}

function notFound(arn: string): SnsAnswer {
  return snsError(404, 'NotFound', `Topic does not exist: ${arn || '(no TopicArn)'} is not a topic this caller created on this service (CreateTopic first)`);
}

/** `Subscribe`: an http(s) endpoint the node may call, its confirmation posted in the background. */
async function subscribe(c: Context<AppEnv>, ctx: ServerContext, topics: SnsTopics, form: ParsedForm): Promise<SnsAnswer> {
  const topic = topics.get(templateOwnerOf(c), formField(form, 'TopicArn'));
  if (!topic) return notFound(formField(form, 'TopicArn'));
  const protocol = formField(form, 'Protocol').toLowerCase();
  const endpoint = formField(form, 'Endpoint');
  if (protocol !== 'http' && protocol !== 'https') return snsError(400, 'InvalidParameter', `Invalid parameter: Protocol Reason: inboxkit's SNS delivers to http and https subscriptions only, got ${protocol || '(none)'}`);
  if (!endpoint.toLowerCase().startsWith(`${protocol}://`)) return snsError(400, 'InvalidParameter', `Invalid parameter: Endpoint Reason: an ${protocol} subscription's endpoint must be an ${protocol}:// URL, got ${endpoint || '(none)'}`);
  const problem = ctx.webhooks.problemOf(endpoint);
  if (problem) return snsError(400, 'InvalidParameter', `Invalid parameter: Endpoint Reason: ${problem}`);
  const unsigned = await ctx.snsSigning.certificate().then(() => null, (error: unknown) => (error as Error).message);
  if (unsigned) return snsError(500, 'InternalError', `SNS cannot sign its posts here: ${unsigned}`);
  const url = new URL(c.req.url);
  const subscription = topics.subscribe(topic, endpoint, { host: url.hostname.replace(/^\[|\]$/g, ''), origin: `${url.origin}${url.pathname.replace(/\/+$/, '')}` });
  if ('error' in subscription) return snsError(400, 'SubscriptionLimitExceeded', subscription.error);
  if (!subscription.confirmed) {
    postConfirmation(snsPosterOf(ctx), topic, subscription).catch((error: unknown) => ctx.logger.warn({ err: error, url: endpoint, topic: topic.arn }, 'sns: a SubscriptionConfirmation was not delivered'));
  }
  const returnArn = formField(form, 'ReturnSubscriptionArn') === 'true' || subscription.confirmed;
  return snsResult('Subscribe', { SubscriptionArn: returnArn ? subscription.arn : 'pending confirmation' });
}

/** `ConfirmSubscription`, by the SDK or by a visit to `SubscribeURL`: the token a `SubscriptionConfirmation` carried. */
export function confirmSubscription(topics: SnsTopics, topicArn: string, token: string): SnsAnswer {
  const subscription = topics.confirm(topicArn, token);
  if (!subscription) return snsError(400, 'InvalidParameter', 'Invalid token: no subscription of this topic was sent that token (it is in the SubscriptionConfirmation SNS posted to the endpoint)');
  return snsResult('ConfirmSubscription', { SubscriptionArn: subscription.arn });
}

/** `Unsubscribe`, by the SDK or by a visit to a notification's `UnsubscribeURL`: the subscription's ARN. */
export function unsubscribe(topics: SnsTopics, subscriptionArn: string): SnsAnswer {
  if (!topics.unsubscribe(subscriptionArn)) return snsError(404, 'NotFound', `Subscription does not exist: ${subscriptionArn || '(no SubscriptionArn)'}`);
  return snsResult('Unsubscribe');
}

/** `Publish` to a topic the caller holds: a notification to each confirmed subscription. */
function publishToArn(c: Context<AppEnv>, ctx: ServerContext, topics: SnsTopics, form: ParsedForm): SnsAnswer {
  const arn = formField(form, 'TopicArn') || formField(form, 'TargetArn');
  const topic = topics.get(templateOwnerOf(c), arn);
  if (!topic) return notFound(arn);
  const message = formField(form, 'Message');
  if (message === '') return snsError(400, 'InvalidParameter', 'Invalid parameter: Empty message');
  publishToTopic(snsPosterOf(ctx), topic, formField(form, 'Subject'), message);
  return snsResult('Publish', { MessageId: randomUUID() });
}

/** A topic action's answer, or null when the request is none (a `Publish` to a `PhoneNumber`). */
export async function topicAction(c: Context<AppEnv>, ctx: ServerContext, topics: SnsTopics, action: string, form: ParsedForm): Promise<SnsAnswer | null> {
  const owner = templateOwnerOf(c);
  if (action === 'CreateTopic') {
    const version = signatureVersionOf(attributesOf(form).get('SignatureVersion'));
    if (typeof version !== 'string') return version;
    const topic = topics.create(owner, formField(form, 'Name'), regionOf(c.req.header('authorization')), version);
    return 'error' in topic ? snsError(400, 'InvalidParameter', topic.error) : snsResult('CreateTopic', { TopicArn: topic.arn });
  }
  if (action === 'SetTopicAttributes') {
    const topic = topics.get(owner, formField(form, 'TopicArn'));
    if (!topic) return notFound(formField(form, 'TopicArn'));
    if (formField(form, 'AttributeName') !== 'SignatureVersion') return snsError(400, 'InvalidParameter', `Invalid parameter: AttributeName Reason: inboxkit's SNS sets SignatureVersion only, got ${formField(form, 'AttributeName') || '(none)'}`);
    const version = signatureVersionOf(formField(form, 'AttributeValue'));
    if (typeof version !== 'string') return version;
    topic.signatureVersion = version;
    return snsResult('SetTopicAttributes');
  }
  if (action === 'Subscribe') return subscribe(c, ctx, topics, form);
  if (action === 'ConfirmSubscription') return confirmSubscription(topics, formField(form, 'TopicArn'), formField(form, 'Token'));
  if (action === 'Unsubscribe') return unsubscribe(topics, formField(form, 'SubscriptionArn'));
  if (action === 'Publish' && formField(form, 'PhoneNumber') === '' && (formField(form, 'TopicArn') || formField(form, 'TargetArn'))) return publishToArn(c, ctx, topics, form);
  return null;
}
