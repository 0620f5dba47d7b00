/**
 * What the OpenAPI document says of the provider APIs, which are served from
 * the service's origin rather than under `/api/v1` and answer in each
 * provider's own shapes (not the `Error` envelope): the extension
 * `x-inboxkit-provider-apis` lists each row of the provider table (its
 * mount, the variable `inboxkitServer()` hands the app, the SDK and its
 * option), and `x-inboxkit-origin-paths` holds the template endpoint as
 * OpenAPI path items, with their own `servers` (the origin).
 *
 * @packageDocumentation
 */
import { PROVIDERS } from '../../wire/providers.ts';
import type { ProviderRow } from '../../wire/providers.ts';

/** The schema of a template's body (`PUT /email/templates/{provider}/{id}`). */
export const EMAIL_TEMPLATE_SCHEMA = {
  type: 'object',
  description: 'A template the sends by that provider\'s template id are rendered with: Handlebars sources (SES\'s `{{ }}`, Postmark\'s Mustachio and Resend\'s `{{{VAR}}}` read the same). `html` or `text` is required; all three together are at most 256 K characters.',
  properties: {
    subject: { type: 'string', description: 'The subject\'s source; empty when absent' },
    html: { type: 'string', description: 'The HTML body\'s source' },
    text: { type: 'string', description: 'The text body\'s source' },
  },
  anyOf: [{ required: ['html'] }, { required: ['text'] }],
} as const;

const EMAIL_IDS = PROVIDERS.filter((row) => row.channel === 'email').map((row) => row.id);

function problem(description: string): Record<string, unknown> {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

const PARAMETERS = [
  { name: 'provider', in: 'path', required: true, description: 'The email provider whose template id it is', schema: { type: 'string', enum: EMAIL_IDS } },
  { name: 'id', in: 'path', required: true, description: 'The provider\'s template id (SendGrid\'s `d-…`, Postmark\'s alias or id, SES\'s name, Mailgun\'s name, Resend\'s id)', schema: { type: 'string' } },
];

/** The template endpoint, as OpenAPI path items served from the origin. */
function originPaths(): Record<string, unknown> {
  return {
    '/email/templates/{provider}/{id}': {
      servers: [{ url: '/', description: 'The service\'s origin (outside /api/v1)' }],
      parameters: PARAMETERS,
      put: {
        operationId: 'putEmailTemplate',
        summary: 'Register a template a provider\'s template sends are rendered with',
        description: 'Belongs to the caller (its API key, or its address as a guest), per node. A send by this template id through the provider\'s API is rendered with it, so link() and otp() read the result; without one the send is stored with its template id and data.',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/EmailTemplate' } } } },
        responses: {
          '200': { description: 'Registered', content: { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data: { type: 'object', required: ['provider', 'id'], properties: { provider: { type: 'string' }, id: { type: 'string' } } } } } } } },
          '400': problem('The body is not a template, or does not compile (`validation_error`)'),
          '404': problem('Not an email provider this service speaks (`not_found`)'),
        },
      },
      delete: {
        operationId: 'deleteEmailTemplate',
        summary: 'Remove a registered template',
        responses: { '204': { description: 'Removed' }, '404': problem('No such template registered by this caller (`not_found`)') },
      },
    },
  };
}

/** The document's extensions for the provider APIs and the template endpoint, and the template's schema. */
export function providerExtensions(): { extensions: Record<string, unknown>; schemas: Record<string, unknown> } {
  const providers = (PROVIDERS as readonly ProviderRow[]).filter((row) => !row.mount.startsWith('/api/')).map((row) => ({ id: row.id, channel: row.channel, label: row.label, path: row.mount, env: row.env, sdk: row.sdk }));
  return {
    extensions: {
      'x-inboxkit-provider-apis': {
        description: 'The email and SMS providers\' own APIs, served from the service\'s origin at each `path` as the provider\'s SDK calls them (pointed there by `env`, which inboxkitServer() hands the app), answering in the provider\'s own success and error shapes; see docs/email-apis.md and docs/phones.md.',
        providers,
      },
      'x-inboxkit-origin-paths': originPaths(),
    },
    schemas: { EmailTemplate: EMAIL_TEMPLATE_SCHEMA },
  };
}
