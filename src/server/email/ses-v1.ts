/**
 * Amazon SES v1's wire format (the Query protocol), as `@aws-sdk/client-ses`
 * sends it: a form with `Action` (`SendEmail`, `SendRawEmail`,
 * `SendTemplatedEmail`, `CreateTemplate`) and lists as `Name.member.N`,
 * read into the v2 shapes the service already serves; answers in SES's XML
 * (`<SendEmailResponse>`, `<ErrorResponse>`).
 *
 * @packageDocumentation
 */
import { randomUUID } from 'node:crypto';
import type { SesAnswer } from './ses.ts';

const XMLNS = 'http://ses.amazonaws.com/doc/2010-12-01/';

/** The v1 actions served. */
export const SES_V1_ACTIONS = ['SendEmail', 'SendRawEmail', 'SendTemplatedEmail', 'CreateTemplate', 'CreateConfigurationSet', 'CreateConfigurationSetEventDestination'] as const;

/** A form as read from the request: every field's string value. */
export type QueryForm = Record<string, string>;

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The values of a list (`Name.member.1`, `Name.member.2` …), in order. */
export function members(form: QueryForm, name: string): string[] {
  const out: Array<[number, string]> = [];
  const prefix = `${name}.member.`;
  for (const [key, value] of Object.entries(form)) {
    const index = key.startsWith(prefix) ? Number(key.slice(prefix.length)) : NaN;
    if (Number.isInteger(index)) out.push([index, value]);
  }
  return out.sort((a, b) => a[0] - b[0]).map(([, value]) => value);
}

/** The tags of a send (`Tags.member.N.Name` / `.Value`), as v2's `EmailTags`. */
function tagsOf(form: QueryForm): Array<{ Name: string; Value: string }> {
  const out: Array<{ Name: string; Value: string }> = [];
  for (let n = 1; form[`Tags.member.${n}.Name`] !== undefined && n <= 50; n++) out.push({ Name: form[`Tags.member.${n}.Name`] ?? '', Value: form[`Tags.member.${n}.Value`] ?? '' });
  return out;
}

function destinationOf(form: QueryForm): Record<string, string[]> | undefined {
  const to = members(form, 'Destination.ToAddresses');
  const cc = members(form, 'Destination.CcAddresses');
  const bcc = members(form, 'Destination.BccAddresses');
  return to.length + cc.length + bcc.length === 0 ? undefined : { ToAddresses: to, CcAddresses: cc, BccAddresses: bcc };
}

/** A v1 send read as the v2 `SendEmail` body the service serves. */
export function v2SendOf(action: string, form: QueryForm): Record<string, unknown> {
  const common = { FromEmailAddress: form.Source, ReplyToAddresses: members(form, 'ReplyToAddresses'), EmailTags: tagsOf(form), ConfigurationSetName: form.ConfigurationSetName };
  if (action === 'SendRawEmail') {
    const destinations = members(form, 'Destinations');
    return { ...common, Destination: destinations.length > 0 ? { ToAddresses: destinations } : undefined, Content: { Raw: { Data: form['RawMessage.Data'] } } };
  }
  if (action === 'SendTemplatedEmail') return { ...common, Destination: destinationOf(form), Content: { Template: { TemplateName: form.Template, TemplateData: form.TemplateData } } };
  const body: Record<string, unknown> = {};
  if (form['Message.Body.Text.Data'] !== undefined) body.Text = { Data: form['Message.Body.Text.Data'] };
  if (form['Message.Body.Html.Data'] !== undefined) body.Html = { Data: form['Message.Body.Html.Data'] };
  const subject = form['Message.Subject.Data'];
  return { ...common, Destination: destinationOf(form), Content: { Simple: { ...(subject !== undefined ? { Subject: { Data: subject } } : {}), Body: body } } };
}

/** A v1 `CreateTemplate` read as v2's `CreateEmailTemplate` body. */
export function v2TemplateOf(form: QueryForm): Record<string, unknown> {
  return { TemplateName: form['Template.TemplateName'], TemplateContent: { Subject: form['Template.SubjectPart'], Html: form['Template.HtmlPart'], Text: form['Template.TextPart'] } };
}

/** A v1 `CreateConfigurationSetEventDestination` read as v2's body (v1's lowercase event types, `SNSDestination.TopicARN`). */
export function v2EventDestinationOf(form: QueryForm): Record<string, unknown> {
  const sns = form['EventDestination.SNSDestination.TopicARN'];
  return {
    EventDestinationName: form['EventDestination.Name'],
    EventDestination: { Enabled: form['EventDestination.Enabled'] !== 'false', MatchingEventTypes: members(form, 'EventDestination.MatchingEventTypes').map((t) => t.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()), ...(sns ? { SnsDestination: { TopicArn: sns } } : {}) },
  };
}

/** v1's error codes for v2's exceptions. */
function v1Code(type: string): string {
  if (type === 'BadRequestException') return 'InvalidParameterValue';
  if (type === 'AlreadyExistsException') return 'AlreadyExists';
  if (type === 'NotFoundException') return 'ConfigurationSetDoesNotExist';
  return type;
}

/** A v1 answer: the XML of a v2 answer for `action`. */
export function v1Answer(action: string, answer: SesAnswer): { status: number; xml: string } {
  const requestId = randomUUID();
  if (answer.errorType) {
    const message = (answer.body as { message?: string }).message ?? '';
    return { status: answer.status, xml: `<ErrorResponse xmlns="${XMLNS}"><Error><Type>Sender</Type><Code>${xml(v1Code(answer.errorType))}</Code><Message>${xml(message)}</Message></Error><RequestId>${requestId}</RequestId></ErrorResponse>` };
  }
  const id = (answer.body as { MessageId?: string }).MessageId;
  const result = id === undefined ? `<${action}Result/>` : `<${action}Result><MessageId>${xml(id)}</MessageId></${action}Result>`;
  return { status: 200, xml: `<${action}Response xmlns="${XMLNS}">${result}<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${action}Response>` };
}

/** v1's answer to an action it does not serve. */
export function v1Unserved(action: string): { status: number; xml: string } {
  return v1Answer(action, { status: 400, body: { message: `${action || '(no Action)'} is not served by inboxkit's SES emulation: it serves the v1 actions ${SES_V1_ACTIONS.join(', ')} and SESv2 SendEmail, SendBulkEmail, CreateEmailTemplate.` }, errorType: 'InvalidAction' });
}
