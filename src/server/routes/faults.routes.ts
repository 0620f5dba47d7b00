/**
 * Route definitions of the delivery-fault extension: set, read and clear the
 * fault of one inbox. Marked `x-inboxkit-extension` in the OpenAPI document.
 *
 * @packageDocumentation
 */
import { createRoute, z } from '@hono/zod-openapi';
import { ClearedDeliveryFaultSchema, DeliveryFaultRequestSchema, DeliveryFaultSchema, DeliveryFaultStateSchema } from '../../wire/faults.ts';
import { errorResponses, jsonBody, okResponse, security as securityOf } from '../http/openapi.ts';

const security = [...securityOf.required];
const InboxIdParam = z.object({ id: z.string().min(1).meta({ param: { name: 'id', in: 'path' }, description: 'Inbox id' }) });
const PATH = '/inboxes/{id}/delivery-fault';
const EXTENSION =
  'Not part of the Disposable Inbox API specification: the local service offers it so that a test can make mail to one inbox fail. ' +
  'Servers without it answer 404 or 405. Other inboxes are never affected; the fault goes with the inbox when it is deleted or expires.';

/** `PUT /inboxes/{id}/delivery-fault` (inboxkit extension) */
export const setDeliveryFaultRoute = createRoute({
  method: 'put',
  path: PATH,
  operationId: 'setDeliveryFault',
  tags: ['Delivery faults'],
  summary: 'Make the next deliveries to an inbox fail or wait (inboxkit extension)',
  description:
    `${EXTENSION}\n\nWith a \`code\`, the SMTP intake refuses the inbox's address at \`RCPT TO\` with that reply and an RFC 3463 enhanced status ` +
    '(451 → `451 4.3.0`, 550 → `550 5.7.1` unless `enhancedStatus` says otherwise), for `count` attempts (every attempt when omitted). ' +
    'With `delayMs`, the refusal waits that long; without a code, this inbox\'s copy is stored that much later, while the other recipients\' copies are stored at once (the `250`, one reply for the message, comes once every copy is stored). ' +
    'A message to several inboxes is refused only for the faulty ones; 421 is not accepted as a fault, since it closes the connection for every recipient. ' +
    'Faults are kept in the store: every node on one database applies them. Setting a fault replaces the one before.',
  'x-inboxkit-extension': true,
  security,
  request: { params: InboxIdParam, ...jsonBody(DeliveryFaultRequestSchema, 'The fault') },
  responses: {
    ...okResponse(DeliveryFaultSchema, 'The fault now in force'),
    ...errorResponses(400, 404, 413),
  },
});

/** `GET /inboxes/{id}/delivery-fault` (inboxkit extension) */
export const getDeliveryFaultRoute = createRoute({
  method: 'get',
  path: PATH,
  operationId: 'getDeliveryFault',
  tags: ['Delivery faults'],
  summary: 'The delivery fault in force for an inbox (inboxkit extension)',
  description: EXTENSION,
  'x-inboxkit-extension': true,
  security,
  request: { params: InboxIdParam },
  responses: {
    ...okResponse(DeliveryFaultStateSchema, 'The fault, or null when mail is accepted normally'),
    ...errorResponses(404),
  },
});

/** `DELETE /inboxes/{id}/delivery-fault` (inboxkit extension) */
export const clearDeliveryFaultRoute = createRoute({
  method: 'delete',
  path: PATH,
  operationId: 'clearDeliveryFault',
  tags: ['Delivery faults'],
  summary: 'Accept mail for an inbox normally again (inboxkit extension)',
  description: EXTENSION,
  'x-inboxkit-extension': true,
  security,
  request: { params: InboxIdParam },
  responses: {
    ...okResponse(ClearedDeliveryFaultSchema, 'Cleared'),
    ...errorResponses(404),
  },
});
