/**
 * What SNS posts to an HTTP(S) subscriber: the `SubscriptionConfirmation`
 * when it subscribes, then a `Notification` for each message published to
 * its topic once confirmed. Each is JSON in SNS's envelope, signed
 * (`sns-signing.ts`), sent with SNS's `x-amz-sns-*` headers through the
 * node's bounded webhook sender, charged to the topic's owner; a failure is
 * logged, never retried.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import type { Webhooks } from './callbacks.ts';
import type { SnsSigning, SnsEnvelope } from './sns-signing.ts';
import type { SnsSubscription, SnsTopic } from './sns-topics.ts';

/** Where an SNS post goes and how it is signed and logged. */
export interface SnsPoster {
  sender: Webhooks;
  signing: SnsSigning;
  log: { warn(fields: object, message: string): void };
}

function headersOf(message: SnsEnvelope, subscription: SnsSubscription): Record<string, string> {
  return {
    'content-type': 'text/plain; charset=UTF-8',
    'user-agent': 'Amazon Simple Notification Service Agent',
    'x-amz-sns-message-type': message.Type ?? 'Notification',
    'x-amz-sns-message-id': message.MessageId ?? '',
    'x-amz-sns-topic-arn': message.TopicArn ?? '',
    ...(message.Type === 'Notification' ? { 'x-amz-sns-subscription-arn': subscription.arn } : {}),
  };
}

async function post(poster: SnsPoster, topic: SnsTopic, subscription: SnsSubscription, message: SnsEnvelope): Promise<void> {
  const signed = await poster.signing.sign(message, topic.signatureVersion, subscription.host);
  await poster.sender.postBody(topic.owner, subscription.endpoint, JSON.stringify(signed), headersOf(signed, subscription));
}

/** The URL that confirms a subscription when the app visits it (`SubscribeURL`). */
export function subscribeUrlOf(topic: SnsTopic, subscription: SnsSubscription): string {
  return `${subscription.origin}/?Action=ConfirmSubscription&TopicArn=${encodeURIComponent(topic.arn)}&Token=${subscription.token}`;
}

/** Posts a subscription's `SubscriptionConfirmation`; rejects when it could not be signed or sent. */
export async function postConfirmation(poster: SnsPoster, topic: SnsTopic, subscription: SnsSubscription): Promise<void> {
  const message: SnsEnvelope = {
    Type: 'SubscriptionConfirmation',
    MessageId: randomUUID(),
    Token: subscription.token,
    TopicArn: topic.arn,
    Message: `You have chosen to subscribe to the topic ${topic.arn}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`,
    SubscribeURL: subscribeUrlOf(topic, subscription),
    Timestamp: new Date().toISOString(),
  };
  await post(poster, topic, subscription, message);
}

/** Publishes a message to each confirmed subscription of a topic, in the background. */
export function publishToTopic(poster: SnsPoster, topic: SnsTopic, subject: string, text: string): void {
  for (const subscription of topic.subscriptions.filter((s) => s.confirmed)) {
    const message: SnsEnvelope = {
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: topic.arn,
      Subject: subject,
      Message: text,
      Timestamp: new Date().toISOString(),
      UnsubscribeURL: `${subscription.origin}/?Action=Unsubscribe&SubscriptionArn=${encodeURIComponent(subscription.arn)}`,
    };
    post(poster, topic, subscription, message).catch((error: unknown) => poster.log.warn({ err: error, url: subscription.endpoint, topic: topic.arn }, 'sns: a notification was not delivered'));
  }
}
