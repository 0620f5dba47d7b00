/**
 * Ids the stores make, the same on every backend.
 *
 * @packageDocumentation
 */
import { createHash, randomBytes } from 'node:crypto';

/** A new opaque id with a readable prefix, e.g. `ibx_3f9a…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

/** A stable id for a domain name, so ids survive restarts of an in-memory store and agree between nodes. */
export function domainId(domain: string): string {
  return `dom_${createHash('sha256').update(domain.toLowerCase()).digest('hex').slice(0, 12)}`;
}
