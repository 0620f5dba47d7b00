/**
 * A self-signed certificate for STARTTLS, made at start when the operator
 * asks for one (`--smtp-tls-self-signed`): Node.js has no X.509 generation of
 * its own, so the optional package `selfsigned` (over node-forge) signs it,
 * loaded only then; the RSA key is made by Node's own crypto. An MTA relaying
 * to the service encrypts with it but cannot verify it (Postfix:
 * `smtp_tls_security_level = encrypt`); a verified certificate is given with
 * `--smtp-tls-key`/`--smtp-tls-cert`.
 *
 * @packageDocumentation
 */
import { generateKeyPair } from 'node:crypto';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import type * as Selfsigned from 'selfsigned';

/** A key and certificate in PEM. */
export interface PemPair {
  key: string;
  cert: string;
}

/**
 * Makes a self-signed certificate (RSA 2048, SHA-256) for `names` (the first
 * is the common name; each is a subject alternative name, an IP address as
 * one), valid from now for `days`.
 *
 * @throws Error saying how to install `selfsigned` when it is missing.
 */
export async function makeSelfSigned(names: string[], days = 365): Promise<PemPair> {
  let selfsigned: typeof Selfsigned;
  try {
    const loaded = (await import('selfsigned')) as typeof Selfsigned & { default?: typeof Selfsigned };
    selfsigned = loaded.default ?? loaded;
  } catch (error) {
    throw new Error('inboxkit: a self-signed certificate needs the optional package selfsigned; install it next to inboxkit (npm install selfsigned), or give --smtp-tls-key and --smtp-tls-cert.', { cause: error });
  }
  const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const unique = [...new Set(names)];
  const altNames = unique.map((name) => (isIP(name) ? { type: 7, ip: name } : { type: 2, value: name }));
  // `keyPair` (sign this key instead of making one in JavaScript) is read by selfsigned 2.x but not in its types.
  const options: Parameters<typeof selfsigned.generate>[1] & { keyPair: { privateKey: string; publicKey: string } } = {
    days,
    algorithm: 'sha256',
    keyPair: { privateKey, publicKey },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  };
  const pems = selfsigned.generate([{ name: 'commonName', value: unique[0] ?? 'localhost' }], options);
  return { key: privateKey, cert: pems.cert };
}
