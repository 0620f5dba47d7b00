/**
 * How the service signs what SNS posts to an HTTP(S) subscriber
 * (`SubscriptionConfirmation`, `Notification`), as SNS signs it: the fields
 * of the message type, each `name\nvalue\n`, signed with RSA (SHA1 for
 * `SignatureVersion` 1, SHA256 for 2), the signature in base64, and the
 * certificate that verifies it at `SigningCertURL`.
 *
 * A verifier such as `sns-validator` fetches `SigningCertURL` over https
 * only, from a host its pattern admits. So the node makes one key and a
 * self-signed certificate for it on the first need (the optional package
 * `selfsigned`, as for STARTTLS, given by whoever starts the service), and serves that certificate from a small
 * HTTPS listener on the HTTP listener's host and a port of its own, whose
 * TLS certificate is that same certificate: the app trusts one PEM (fetched
 * from `GET /sms/sns/SigningCert.pem`) for both the TLS connection and the
 * signature, and gives the validator a pattern for the service's host
 * (`new MessageValidator(/^127\.0\.0\.1:\d+$/)`).
 *
 * @packageDocumentation
 */
import { createHash, createSign } from 'node:crypto';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';

/** An SNS message before its signature: the fields SNS posts, as strings. */
export type SnsEnvelope = Record<string, string>;

/** The fields SNS signs, in order, by message type (a field absent from the message is left out). */
const SIGNED_FIELDS: Record<string, readonly string[]> = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** The text SNS signs for a message: each signed field present, `name\nvalue\n`. */
export function snsStringToSign(message: SnsEnvelope): string {
  const fields = SIGNED_FIELDS[message.Type ?? ''] ?? SIGNED_FIELDS.Notification ?? [];
  return fields.filter((name) => message[name] !== undefined).map((name) => `${name}\n${message[name]}\n`).join('');
}

/** The node's SNS signing key and the certificate apps verify it with. */
export interface SnsSigning {
  /** The certificate (PEM), made on the first call. @throws Error naming the optional package `selfsigned` when it is missing. */
  certificate(): Promise<string>;
  /**
   * Signs a message with `SignatureVersion` `version`, adding `Signature`,
   * `SigningCertURL` (on `host`, the name the app reached the service by)
   * and `SignatureVersion`.
   */
  sign(message: SnsEnvelope, version: '1' | '2', host: string): Promise<SnsEnvelope>;
  /** Closes the certificate's listener, if it was opened. */
  close(): Promise<void>;
}

/** What the certificate's listener is. */
interface Made {
  key: string;
  cert: string;
  path: string;
  port: number;
  server: Server;
}

/** The host part of a URL for a host name or address (an IPv6 address in brackets). */
function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** What {@link createSnsSigning} is given. */
export interface SnsSigningOptions {
  /** The HTTP listener's host, where the certificate's listener opens too. */
  listenHost: string;
  /** The service's own ports: the certificate's is added once open (no webhook calls it). */
  ownPorts: number[];
  /** Makes an RSA key and a self-signed certificate for `names` (the service's `makeSelfSigned`). */
  makeCertificate(names: string[]): Promise<{ key: string; cert: string }>;
}

/** A `makeCertificate` for a context no service started: it says why SNS signing is unavailable. */
export async function noSnsCertificate(): Promise<{ key: string; cert: string }> {
  throw new Error('inboxkit: SNS signing needs a certificate maker; this context was made without one (startServer() gives it).');
}

/** Connections the certificate's listener holds at once; past it new ones are dropped. */
const CERTIFICATE_MAX_CONNECTIONS = 64;
/** Longest a connection to the certificate's listener may take, from its first byte to its answer, or idle. */
const CERTIFICATE_TIMEOUT_MS = 10_000;

/** Makes the node's SNS signing. */
export function createSnsSigning(options: SnsSigningOptions): SnsSigning {
  let made: Promise<Made> | null = null;
  const make = async (): Promise<Made> => {
    const { key, cert } = await options.makeCertificate(['localhost', '127.0.0.1', '::1', options.listenHost]);
    const path = `/SimpleNotificationService-${createHash('sha256').update(cert).digest('hex').slice(0, 32)}.pem`;
    const server = createServer({ key, cert }, (request, response) => {
      const found = request.method === 'GET' && request.url === path;
      response.writeHead(found ? 200 : 404, { 'content-type': found ? 'application/x-pem-file' : 'text/plain' });
      response.end(found ? cert : 'inboxkit: this port serves the SNS signing certificate only.\n');
    });
    // One small file to serve: a few connections, each short-lived, so the port cannot hold the node's descriptors.
    server.maxConnections = CERTIFICATE_MAX_CONNECTIONS;
    server.headersTimeout = CERTIFICATE_TIMEOUT_MS;
    server.requestTimeout = CERTIFICATE_TIMEOUT_MS;
    server.keepAliveTimeout = 1_000;
    server.setTimeout(CERTIFICATE_TIMEOUT_MS, (socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, options.listenHost, () => resolve());
    });
    server.unref();
    const port = (server.address() as AddressInfo).port;
    options.ownPorts.push(port);
    return { key, cert, path, port, server };
  };
  const ready = () => (made ??= make().catch((error: unknown) => {
    made = null;
    throw error;
  }));
  return {
    certificate: async () => (await ready()).cert,
    async sign(message, version, host) {
      const { key, path, port } = await ready();
      const signed: SnsEnvelope = { ...message, SignatureVersion: version, SigningCertURL: `https://${urlHost(host)}:${port}${path}` };
      const signature = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256').update(snsStringToSign(signed), 'utf8').sign(key, 'base64');
      return { ...signed, Signature: signature };
    },
    async close() {
      if (!made) return;
      const current = await made.catch(() => null);
      if (!current) return;
      const closed = new Promise<void>((resolve) => current.server.close(() => resolve()));
      current.server.closeAllConnections();
      await closed;
    },
  };
}
