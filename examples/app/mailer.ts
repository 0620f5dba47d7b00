/** Sends the app's emails over plain SMTP with nodemailer. */
import { createTransport } from 'nodemailer';
import type { EmailContent } from './emails.ts';
import { DKIM_DOMAIN, DKIM_SELECTOR, DKIM_TEST_PRIVATE_KEY } from './dkim.ts';

/** Where and as whom the app sends mail. */
export interface MailerOptions {
  /** SMTP host. */
  host: string;
  /** SMTP port. */
  port: number;
  /** The From header. */
  from: string;
  /**
   * Attempts per email when the SMTP server answers a temporary (4xx) failure;
   * a permanent (5xx) one is not retried.
   * @defaultValue 3
   */
  attempts?: number;
  /**
   * Wait before the first retry, in milliseconds; doubled after each.
   * @defaultValue 200
   */
  retryDelayMs?: number;
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
      const attempts = options.attempts ?? 3;
      for (let attempt = 1; ; attempt++) {
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
            ...(content.dkim ? { dkim: { domainName: DKIM_DOMAIN, keySelector: DKIM_SELECTOR, privateKey: DKIM_TEST_PRIVATE_KEY } } : {}),
          });
          return;
        } catch (error) {
          // A temporary refusal (4xx, e.g. "451 4.3.0 try again later") is retried with backoff, as a real mail queue would.
          const code = (error as { responseCode?: number }).responseCode;
          if (code !== undefined && code >= 400 && code < 500 && attempt < attempts) {
            await new Promise((resolve) => setTimeout(resolve, (options.retryDelayMs ?? 200) * 2 ** (attempt - 1)));
            continue;
          }
          const reason = error instanceof Error ? error.message : String(error);
          const tries = attempt > 1 ? ` (after ${attempt} attempts)` : '';
          const advice =
            code !== undefined && code >= 500
              ? 'The mail server refused it permanently; check the address.'
              : 'Check that the SMTP server is running and that SMTP_HOST / SMTP_PORT (or INBOXKIT_SMTP_HOST / INBOXKIT_SMTP_PORT) point at it.';
          throw new MailDeliveryError(`Sending "${content.subject}" to ${to} through SMTP ${options.host}:${options.port} failed${tries}: ${reason}. ${advice}`,
            { cause: error },
          );
        }
      }
    },
    close() {
      transport.close();
    },
  };
}
