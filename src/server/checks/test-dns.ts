/**
 * The service's test DNS: the map of DNS names to records an authentication
 * check reads instead of the network. A name the map lacks does not exist
 * (`ENOTFOUND`), a type it lacks has no data (`ENODATA`); nothing is ever
 * looked up. The map's shape is checked by the wire schema; this module checks
 * what each record says, in the words the client uses for the same map.
 *
 * @packageDocumentation
 */
import { isIPv4, isIPv6 } from 'node:net';

/** A test DNS record that is not usable: the message names the record and its expected form. */
export class TestDnsError extends Error {
  override readonly name = 'TestDnsError';
}

/** One query the checks made, for the explanations. */
export interface DnsLookup {
  /** The name asked, normalised. */
  name: string;
  /** The record type asked (`TXT`, `A`, …). */
  type: string;
  /** Whether the map had records of that name and type. */
  found: boolean;
}

/** A resolver as mailauth calls it, answering in the shapes of Node's `dns.promises.resolve`. */
export type TestResolver = (name: string, type: string) => Promise<unknown[]>;

const KNOWN = ['TXT', 'A', 'AAAA', 'MX', 'CNAME', 'PTR'];

/** A DNS name's normal form: lower case, no surrounding space, no trailing dot. */
export function normalName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

function refuse(name: string, problem: string): TestDnsError {
  return new TestDnsError(
    `test DNS: the record of ${JSON.stringify(name)} ${problem}. A name maps to its TXT records (a string or an array of strings) or to { TXT, A, AAAA, MX, CNAME, PTR }.`,
  );
}

function txt(name: string, value: unknown): string[] {
  if (typeof value !== 'string') throw refuse(name, `has a TXT record that is not a string (${JSON.stringify(value)})`);
  if (name.includes('._domainkey.') && !/(?:^|;)\s*p=/.test(value)) {
    throw refuse(name, `is a DKIM key record without a p= tag ("${value.slice(0, 60)}"); write it as 'v=DKIM1; k=rsa; p=<base64 public key>'`);
  }
  if (name.startsWith('_dmarc.') && !/^v=DMARC1\s*(?:;|$)/.test(value)) {
    throw refuse(name, `is a DMARC record that does not start with 'v=DMARC1;' ("${value.slice(0, 60)}")`);
  }
  // RFC 7208 4.5: exactly `v=spf1` then a space or the end; mailauth would silently skip any other spelling.
  if (!/^v=spf1(?: |$)/i.test(value) && /^\s*v\s*=\s*spf/i.test(value)) {
    throw refuse(name, `is an SPF record that does not start with exactly 'v=spf1 ' ("${value.slice(0, 60)}")`);
  }
  return [value];
}

function mx(name: string, value: unknown): { priority: number; exchange: string } {
  if (typeof value === 'string') {
    const parts = /^(\d+)\s+(\S+)$/.exec(value.trim());
    if (!parts) throw refuse(name, `has an MX record ${JSON.stringify(value)} that is not '<priority> <host>' (e.g. '10 mx.acme.example')`);
    return { priority: Number(parts[1]), exchange: normalName(parts[2] ?? '') };
  }
  const { priority, exchange } = (value ?? {}) as { priority?: unknown; exchange?: unknown };
  if (typeof priority !== 'number' || typeof exchange !== 'string') throw refuse(name, `has an MX record ${JSON.stringify(value)} that is neither '<priority> <host>' nor { priority, exchange }`);
  return { priority, exchange: normalName(exchange) };
}

function one(name: string, type: string, value: unknown): unknown {
  if (type === 'TXT') return txt(name, value);
  if (type === 'MX') return mx(name, value);
  if (type === 'A' || type === 'AAAA') {
    const ok = typeof value === 'string' && (type === 'A' ? isIPv4(value) : isIPv6(value));
    if (!ok) throw refuse(name, `has an ${type} record that is not an IPv${type === 'A' ? 4 : 6} address (${JSON.stringify(value)})`);
    return value;
  }
  if (typeof value !== 'string' || value.trim() === '') throw refuse(name, `has a ${type} record that is not a host name (${JSON.stringify(value)})`);
  return normalName(value);
}

/**
 * A resolver over a test DNS map (the body's `dns`). Every query is appended
 * to `lookups`.
 *
 * @throws TestDnsError when a name or record of the map is not usable.
 */
export function testResolver(dns: Readonly<Record<string, unknown>>, lookups: DnsLookup[]): TestResolver {
  const zone = new Map<string, Map<string, unknown[]>>();
  for (const [raw, value] of Object.entries(dns)) {
    const name = normalName(raw);
    if (name === '' || /\s/.test(name)) throw new TestDnsError(`test DNS: ${JSON.stringify(raw)} is not a DNS name.`);
    const byType = typeof value === 'string' || Array.isArray(value) ? { TXT: value } : (value as Record<string, unknown>);
    const entry = zone.get(name) ?? new Map<string, unknown[]>();
    for (const [type, values] of Object.entries(byType)) {
      if (!KNOWN.includes(type)) throw refuse(name, `has records of type ${JSON.stringify(type)}, which the test DNS does not know (it knows ${KNOWN.join(', ')})`);
      const list = Array.isArray(values) ? values : [values];
      entry.set(type, [...(entry.get(type) ?? []), ...list.map((v) => one(name, type, v))]);
    }
    zone.set(name, entry);
  }
  return async (rawName, rawType) => {
    const name = normalName(rawName);
    const type = rawType.toUpperCase();
    const found = zone.get(name)?.get(type);
    lookups.push({ name, type, found: found !== undefined && found.length > 0 });
    if (!zone.has(name)) throw Object.assign(new Error(`no such name ${name} in the test DNS`), { code: 'ENOTFOUND', hostname: name });
    if (found === undefined || found.length === 0) throw Object.assign(new Error(`no ${type} record ${name} in the test DNS`), { code: 'ENODATA', hostname: name });
    return found;
  };
}
