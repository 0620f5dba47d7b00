/**
 * AWS SNS's wire format for `Publish` to a phone number, as the Query
 * protocol (`@aws-sdk/client-sns`) speaks it: a form-encoded request, an XML
 * answer, and the XML `ErrorResponse` with AWS's error codes.
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import type { ParsedForm } from './kit.ts';
import { formField } from './kit.ts';

/** SNS's namespace of the 2010-03-31 API. */
const XMLNS = 'http://sns.amazonaws.com/doc/2010-03-31/';
/** Longest SMS SNS sends, in characters (longer: InvalidParameter). */
export const SNS_MAX_SMS = 1600;

/**
 * Characters XML 1.0 cannot carry at all, not even as a character reference:
 * the C0 controls but tab, line feed and carriage return, lone surrogates, and
 * U+FFFE/U+FFFF. (C1 controls and DEL are allowed; they are escaped below.)
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Characters that are allowed but would not survive as written (markup, a CR a parser folds, invisible controls): written as references. */
const ESCAPED = /[&<>"'\r\u007F-\u009F]/g;
const NAMED: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for an XML element or attribute; a character XML cannot carry becomes U+FFFD. */
function xml(text: string): string {
  return text.replace(NOT_XML, '\uFFFD').replace(ESCAPED, (ch) => NAMED[ch] ?? `&#x${ch.charCodeAt(0).toString(16).toUpperCase()};`);
}

/** An SNS answer: status and XML body. */
export interface SnsAnswer {
  status: number;
  xml: string;
}

/** An SNS error (`Sender` for the caller's fault). */
export function snsError(status: number, code: string, message: string): SnsAnswer {
  const body = `<ErrorResponse xmlns="${XMLNS}"><Error><Type>Sender</Type><Code>${xml(code)}</Code><Message>${xml(message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`;
  return { status, xml: body };
}

/** The answer of a `Publish`. */
export function publishResponse(messageId: string): SnsAnswer {
  return { status: 200, xml: `<PublishResponse xmlns="${XMLNS}"><PublishResult><MessageId>${xml(messageId)}</MessageId></PublishResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>` };
}

/** The answer of an action whose result is `fields` (`<TopicArn>…</TopicArn>`), an empty result without any. */
export function snsResult(action: string, fields: Record<string, string> = {}): SnsAnswer {
  const inner = Object.entries(fields).map(([name, value]) => `<${name}>${xml(value)}</${name}>`).join('');
  return { status: 200, xml: `<${action}Response xmlns="${XMLNS}"><${action}Result>${inner}</${action}Result><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></${action}Response>` };
}

/** The answer of a `CheckIfPhoneNumberIsOptedOut`. */
export function optedOutResponse(optedOut: boolean): SnsAnswer {
  return { status: 200, xml: `<CheckIfPhoneNumberIsOptedOutResponse xmlns="${XMLNS}"><CheckIfPhoneNumberIsOptedOutResult><isOptedOut>${optedOut}</isOptedOut></CheckIfPhoneNumberIsOptedOutResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></CheckIfPhoneNumberIsOptedOutResponse>` };
}

/** SNS's answer to `OptInPhoneNumber` (an empty result). */
export function optInResponse(): SnsAnswer {
  return { status: 200, xml: `<OptInPhoneNumberResponse xmlns="${XMLNS}"><OptInPhoneNumberResult/><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></OptInPhoneNumberResponse>` };
}

/** The message attributes of a Query request (`MessageAttributes.entry.N.Name` / `.Value.StringValue`). */
export function messageAttributes(form: ParsedForm): Map<string, string> {
  const attributes = new Map<string, string>();
  for (let n = 1; n <= 10; n++) {
    const name = formField(form, `MessageAttributes.entry.${n}.Name`);
    if (name === '') break;
    attributes.set(name, formField(form, `MessageAttributes.entry.${n}.Value.StringValue`));
  }
  return attributes;
}

/** The sender an SMS shows: the origination number or sender id the app asked for, else SNS's own. */
export function snsSender(attributes: Map<string, string>): string {
  return attributes.get('AWS.MM.SMS.OriginationNumber') || attributes.get('AWS.SNS.SMS.SenderID') || 'AWS SNS';
}
