/** Sends the app's emails over plain SMTP with nodemailer. */
import { createTransport } from 'nodemailer';
import type { EmailContent } from './emails.ts';

/** Where and as whom the app sends mail. */
export interface MailerOptions {
  /** SMTP host. */
  host: string;
  /** SMTP port. */
  port: number;
  /** The From header. */
  from: string;
}

/** Sends rendered emails; `close()` releases the transport. */
export interface Mailer {
  /** Sends `content` to `to`; resolves once the SMTP server accepted it. */
  send(to: string, content: EmailContent): Promise<void>;
  /** Closes the SMTP transport. */
  close(): void;
}

/** Thrown when the SMTP server could not be reached or refused the message. */
export class MailDeliveryError extends Error {
  override name = 'MailDeliveryError';
}

/**
 * Creates a mailer for an SMTP server without authentication or TLS, such as the
 * inboxkit server's SMTP intake. HTML and text parts are sent quoted-printable.
 *
 * @example
 * const mailer = createMailer({ host: '127.0.0.1', port: 2525, from: 'Acme <no-reply@acme.example>' });
 */
export function createMailer(options: MailerOptions): Mailer {
  const transport = createTransport({
    host: options.host,
    port: options.port,
    secure: false,
    // The target is a local test mail server: plain SMTP, no STARTTLS upgrade.
    ignoreTLS: true,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(to, content) {
      try {
        await transport.sendMail({
          from: options.from,
          to,
          subject: content.subject,
          html: content.html,
          text: content.text,
          textEncoding: 'quoted-printable',
          attachments: content.attachments.map((a) => ({
            filename: a.filename,
            content: a.content,
            contentType: a.contentType,
            ...(a.cid ? { cid: a.cid, contentDisposition: 'inline' as const } : {}),
          })),
          headers: content.headers ?? {},
        });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new MailDeliveryError(
          `Sending "${content.subject}" to ${to} through SMTP ${options.host}:${options.port} failed: ${reason}. ` +
            'Check that the SMTP server is running and that SMTP_HOST / SMTP_PORT (or INBOXKIT_SMTP_HOST / INBOXKIT_SMTP_PORT) point at it.',
          { cause: error },
        );
      }
    },
    close() {
      transport.close();
    },
  };
}
