/**
 * SNS topics and their HTTP(S) subscriptions, as an app makes them with
 * `@aws-sdk/client-sns` (`CreateTopic`, `Subscribe`, `ConfirmSubscription`)
 * to receive SES's event notifications: a subscription is pending until the
 * app confirms it with the token SNS posted in its `SubscriptionConfirmation`
 * (visiting `SubscribeURL`, or `ConfirmSubscription`), and only confirmed
 * subscriptions get notifications.
 *
 * Topics belong to the caller that made them (`callerOf`'s key), per node,
 * within bounds; an ARN another caller names is a topic that does not exist.
 *
 * @packageDocumentation
 */
import { randomBytes, randomUUID } from 'node:crypto';

/** The account id in the ARNs the service makes (no AWS account stands behind them). */
export const SNS_ACCOUNT = '000000000000';
/** Topics one caller keeps, per node. */
export const MAX_TOPICS_PER_CALLER = 100;
/** Subscriptions one topic keeps. */
export const MAX_SUBSCRIPTIONS_PER_TOPIC = 20;

/** An HTTP(S) subscription of a topic. */
export interface SnsSubscription {
  arn: string;
  endpoint: string;
  /** The token of its `SubscriptionConfirmation`. */
  token: string;
  confirmed: boolean;
  /** The host the app reached the service by (where its `SigningCertURL` and `SubscribeURL` point). */
  host: string;
  /** The service's origin as the app reached it, for `SubscribeURL` and `UnsubscribeURL`. */
  origin: string;
}

/** A topic. */
export interface SnsTopic {
  arn: string;
  owner: string;
  /** `SignatureVersion` of what it posts (SNS's default is 1; the attribute sets 2). */
  signatureVersion: '1' | '2';
  subscriptions: SnsSubscription[];
}

/** A topic's name as SNS allows it: letters, digits, `-` and `_`, up to 256 (a FIFO topic ends in `.fifo`). */
const TOPIC_NAME = /^[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

/** The caller's topics on this node. */
export interface SnsTopics {
  /** Makes a topic, or answers the one of that name (SNS's `CreateTopic` is idempotent); the reason it cannot, else. */
  create(owner: string, name: string, region: string, signatureVersion: '1' | '2'): SnsTopic | { error: string };
  /** The caller's topic of an ARN, or null. */
  get(owner: string, arn: string): SnsTopic | null;
  /** A pending subscription of an endpoint (an existing one of the same endpoint is answered again); the reason it cannot, else. */
  subscribe(topic: SnsTopic, endpoint: string, reachedAs: { host: string; origin: string }): SnsSubscription | { error: string };
  /** Confirms the subscription a token was posted for; null when no subscription of the topic has it. */
  confirm(topicArn: string, token: string): SnsSubscription | null;
  /** Removes a subscription by its ARN (the `UnsubscribeURL` names it, as on AWS); whether it was there. */
  unsubscribe(subscriptionArn: string): boolean;
}

/** Makes the topics of one node. */
export function createSnsTopics(): SnsTopics {
  const byArn = new Map<string, SnsTopic>();
  const countOf = new Map<string, number>();
  return {
    create(owner, name, region, signatureVersion) {
      if (!TOPIC_NAME.test(name)) return { error: `Invalid parameter: Topic Name (${JSON.stringify(name)}): use 1 to 256 letters, digits, hyphens and underscores` };
      const arn = `arn:aws:sns:${region}:${SNS_ACCOUNT}:${name}`;
      const existing = byArn.get(arn);
      if (existing && existing.owner === owner) return existing;
      if (existing) return { error: `Invalid parameter: Topic Name (${name}): another caller of this shared service holds a topic of that name; choose another` };
      const count = countOf.get(owner) ?? 0;
      if (count >= MAX_TOPICS_PER_CALLER) return { error: `Topic limit exceeded: this caller holds ${MAX_TOPICS_PER_CALLER} topics on this node, its bound` };
      const topic: SnsTopic = { arn, owner, signatureVersion, subscriptions: [] };
      byArn.set(arn, topic);
      countOf.set(owner, count + 1);
      return topic;
    },
    get: (owner, arn) => {
      const topic = byArn.get(arn);
      return topic && topic.owner === owner ? topic : null;
    },
    subscribe(topic, endpoint, reachedAs) {
      const existing = topic.subscriptions.find((s) => s.endpoint === endpoint);
      if (existing) return existing;
      if (topic.subscriptions.length >= MAX_SUBSCRIPTIONS_PER_TOPIC) return { error: `Subscription limit exceeded: the topic has ${MAX_SUBSCRIPTIONS_PER_TOPIC} subscriptions, its bound on this service` };
      const subscription: SnsSubscription = { arn: `${topic.arn}:${randomUUID()}`, endpoint, token: randomBytes(64).toString('hex'), confirmed: false, ...reachedAs };
      topic.subscriptions.push(subscription);
      return subscription;
    },
    confirm(topicArn, token) {
      const subscription = byArn.get(topicArn)?.subscriptions.find((s) => s.token === token) ?? null;
      if (subscription) subscription.confirmed = true;
      return subscription;
    },
    unsubscribe(subscriptionArn) {
      const topic = byArn.get(subscriptionArn.slice(0, subscriptionArn.lastIndexOf(':')));
      const index = topic?.subscriptions.findIndex((s) => s.arn === subscriptionArn) ?? -1;
      if (!topic || index < 0) return false;
      topic.subscriptions.splice(index, 1);
      return true;
    },
  };
}

/** The region of a request's AWS signature (`Credential=…/20260101/eu-west-1/sns/aws4_request`), else `us-east-1`. */
export function regionOf(authorization: string | undefined): string {
  return /Credential=[^/]+\/\d{8}\/([a-z0-9-]+)\//.exec(authorization ?? '')?.[1] ?? 'us-east-1';
}
