/**
 * A stored-message input (`NewMessage`) for tests that write to a `Store`
 * directly: a small text message named by its subject.
 */
import type { NewMessage } from '../../src/server/storage/contract/types.ts';

/** A small text message with `subject`, no HTML unless `extra` gives some. */
export function newMessage(subject: string, extra: Partial<NewMessage> = {}): NewMessage {
  return {
    raw: new TextEncoder().encode(`Subject: ${subject}\r\n\r\nbody of ${subject}\r\n`),
    from: { address: 'sender@example.com', name: 'Sender' },
    to: [{ address: 'x@inboxkit.test', name: '' }],
    cc: [],
    replyTo: [],
    subject,
    headers: { subject },
    text: `body of ${subject}`,
    rawHtml: null,
    sanitizedHtml: null,
    envelopeFrom: 'sender@example.com',
    attachments: [],
    ...extra,
  };
}
