/**
 * `GET /service` (an inboxkit extension): where this service's mail
 * listeners are, so the viewer can tell how to read an inbox with an IMAP or
 * POP3 client, and an app or a test can find them.
 *
 * @packageDocumentation
 */
import { z } from 'zod';

/** One listener: the host it is bound to and its port. */
export const ListenerSchema = z
  .object({
    host: z.string().meta({ description: 'The address the listener is bound to (0.0.0.0 or :: for every interface)' }),
    port: z.number().int().meta({ description: 'Its port' }),
  })
  .meta({ id: 'Listener' });

/** The service's mail listeners: SMTP always, IMAP and POP3 when they were started (`--imap-port`, `--pop3-port`). */
export const ServiceListenersSchema = z
  .object({
    smtp: ListenerSchema.nullable().meta({ description: 'The SMTP intake' }),
    imap: ListenerSchema.nullable().meta({ description: 'IMAP (every inbox an account: its address, and its inbox token or its owner\'s API key), or null when off' }),
    pop3: ListenerSchema.nullable().meta({ description: 'POP3 (the same accounts), or null when off' }),
  })
  .meta({ id: 'ServiceListeners' });

/** The service's mail listeners. */
export type ServiceListeners = z.infer<typeof ServiceListenersSchema>;
