/**
 * The test DNS: a map of DNS names to records that sender authentication reads
 * instead of the network. A name the map lacks does not exist (NXDOMAIN); a
 * name without the asked type has no data (NODATA). Nothing is ever looked up.
 *
 * @packageDocumentation
 */
import { isIPv4, isIPv6 } from 'node:net';
import { InboxkitError } from '../errors/inboxkit-error.ts';
import { dnsName } from './dns-name.ts';

export { dnsName };

/** A test DNS that is not usable: the message names the record and the form it should have. */
export class TestDnsError extends InboxkitError {
  override name = 'TestDnsError';
}

/** One query the checks made of the test DNS, for the explanations. */
export interface DnsLookup {
  /** The name asked, normalised ({@link dnsName}). */
  name: string;
  /** The record type asked (`TXT`, `A`, …). */
  type: string;
  /** Whether the map had records of that name and type. */
  found: boolean;
}

/** An MX record: `'10 mx.acme.example'` or `{ priority, exchange }`. */
export type MxRecord = string | { priority: number; exchange: string };

/** The records of one DNS name by type; TXT is what DKIM, SPF and DMARC read. */
export interface DnsRecordSet {
  /** TXT records, each one string (long ones are not split). */
  TXT?: string | readonly string[];
  /** IPv4 addresses. */
  A?: string | readonly string[];
  /** IPv6 addresses. */
  AAAA?: string | readonly string[];
  /** Mail exchangers. */
  MX?: MxRecord | readonly MxRecord[];
  /** A canonical name (alias). */
  CNAME?: string | readonly string[];
  /** Names of a reverse (`….in-addr.arpa`) entry. */
  PTR?: string | readonly string[];
}

/**
 * A test DNS: each DNS name (`acme.example`, `sel._domainkey.acme.example`,
 * `_dmarc.acme.example`) to its records. A string or an array of strings is the
 * name's TXT records; an object gives other types too.
 *
 * @example
 * ```ts
 * const dns: TestDns = {
 *   'acme.example': ['v=spf1 ip4:127.0.0.1 -all'],
 *   'mail._domainkey.acme.example': 'v=DKIM1; k=rsa; p=MIIBIjANBg…',
 *   '_dmarc.acme.example': 'v=DMARC1; p=reject',
 *   'mx.acme.example': { A: ['127.0.0.1'] },
 * };
 * ```
 */
export type TestDns = Readonly<Record<string, string | readonly string[] | DnsRecordSet>>;

const TYPES = ['TXT', 'A', 'AAAA', 'MX', 'CNAME', 'PTR'] as const;
type RecordType = (typeof TYPES)[number];

/** A test DNS checked and normalised: lower-case names without a trailing dot. */
type Zone = Map<string, Partial<Record<RecordType, unknown[]>>>;

/** The error of a DNS resolver, as Node's `dns` module raises it (mailauth reads `code`). */
function dnsError(code: 'ENOTFOUND' | 'ENODATA', name: string, type: string): Error {
  return Object.assign(new Error(`${code === 'ENOTFOUND' ? 'no such name' : `no ${type} record`} ${name} in the test DNS`), { code, hostname: name });
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

function bad(name: string, problem: string): TestDnsError {
  return new TestDnsError(
    `test DNS: the record of ${JSON.stringify(name)} ${problem}. A name maps to its TXT records (a string or an array of strings) or to { TXT, A, AAAA, MX, CNAME, PTR }.`,
  );
}

function checkTxt(name: string, record: unknown): string {
  if (typeof record !== 'string') throw bad(name, `has a TXT record that is not a string (${JSON.stringify(record)})`);
  if (/\._domainkey\./.test(name) && !/(^|;)\s*p=/.test(record)) {
    throw bad(name, `is a DKIM key record without a p= tag ("${record.slice(0, 60)}"); write it as 'v=DKIM1; k=rsa; p=<base64 public key>'`);
  }
  if (name.startsWith('_dmarc.') && !/^v=DMARC1\s*(;|$)/.test(record)) {
    throw bad(name, `is a DMARC record that does not start with 'v=DMARC1;' ("${record.slice(0, 60)}")`);
  }
  // RFC 7208 4.5: the version is exactly v=spf1 (in any case), ended by a space or the end of the record;
  // mailauth skips any other record, so 'v=spf1-all' or ' v=spf1 …' would silently leave the domain without SPF.
  if (/^v=spf1( |$)/i.test(record) === false && /^\s*v\s*=\s*spf/i.test(record)) {
    throw bad(name, `is an SPF record that does not start with exactly 'v=spf1 ' ("${record.slice(0, 60)}")`);
  }
  return record;
}

function checkRecord(name: string, type: RecordType, record: unknown): unknown {
  switch (type) {
    case 'TXT':
      return [checkTxt(name, record)];
    case 'A':
      if (typeof record !== 'string' || !isIPv4(record)) throw bad(name, `has an A record that is not an IPv4 address (${JSON.stringify(record)})`);
      return record;
    case 'AAAA':
      if (typeof record !== 'string' || !isIPv6(record)) throw bad(name, `has an AAAA record that is not an IPv6 address (${JSON.stringify(record)})`);
      return record;
    case 'MX': {
      if (typeof record === 'string') {
        const match = /^(\d+)\s+(\S+)$/.exec(record.trim());
        if (!match) throw bad(name, `has an MX record ${JSON.stringify(record)} that is not '<priority> <host>' (e.g. '10 mx.acme.example')`);
        return { priority: Number(match[1]), exchange: dnsName(match[2] ?? '') };
      }
      const mx = record as { priority?: unknown; exchange?: unknown };
      if (typeof mx !== 'object' || mx === null || typeof mx.priority !== 'number' || typeof mx.exchange !== 'string') {
        throw bad(name, `has an MX record ${JSON.stringify(record)} that is neither '<priority> <host>' nor { priority, exchange }`);
      }
      return { priority: mx.priority, exchange: dnsName(mx.exchange) };
    }
    default:
      if (typeof record !== 'string' || record.trim() === '') throw bad(name, `has a ${type} record that is not a host name (${JSON.stringify(record)})`);
      return dnsName(record);
  }
}

/**
 * Checks a test DNS and returns it normalised.
 *
 * @throws TestDnsError naming the record that is malformed and what it should look like.
 */
function compile(dns: TestDns): Zone {
  if (typeof dns !== 'object' || dns === null || Array.isArray(dns)) {
    throw new TestDnsError(`test DNS: expected an object of DNS names to records, got ${JSON.stringify(dns)}.`);
  }
  const zone: Zone = new Map();
  for (const [rawName, value] of Object.entries(dns)) {
    const name = dnsName(rawName);
    if (name === '' || /\s/.test(name)) throw new TestDnsError(`test DNS: ${JSON.stringify(rawName)} is not a DNS name.`);
    const set: DnsRecordSet = typeof value === 'string' || Array.isArray(value) ? { TXT: value as string[] } : (value as DnsRecordSet);
    if (typeof set !== 'object' || set === null) throw bad(name, `is ${JSON.stringify(value)}`);
    const entry = zone.get(name) ?? {};
    for (const [type, records] of Object.entries(set)) {
      if (!(TYPES as readonly string[]).includes(type)) throw bad(name, `has records of type ${JSON.stringify(type)}, which the test DNS does not know (it knows ${TYPES.join(', ')})`);
      const t = type as RecordType;
      entry[t] = [...(entry[t] ?? []), ...list(records).map((r) => checkRecord(name, t, r))];
    }
    zone.set(name, entry);
  }
  return zone;
}

/**
 * A test DNS with the names of `over` in place of the same names of `base`,
 * names compared as DNS compares them (any case, with or without the
 * trailing dot): a name a call gives replaces the config's entry for it, it
 * is not merged with it (two SPF records would be a permerror).
 *
 * @example
 * ```ts
 * mergeTestDns({ 'Acme.example.': 'v=spf1 -all' }, { 'acme.example': 'v=spf1 ip4:127.0.0.1 -all' });
 * // { 'acme.example': 'v=spf1 ip4:127.0.0.1 -all' }
 * ```
 */
export function mergeTestDns(base: TestDns, over: TestDns | undefined): TestDns {
  if (over === undefined) return base;
  const replaced = new Set(Object.keys(over).map(dnsName));
  return { ...Object.fromEntries(Object.entries(base).filter(([name]) => !replaced.has(dnsName(name)))), ...over };
}

/** A DNS resolver as mailauth calls it: `(name, type) => records`, Node's `dns.promises.resolve` shapes. */
export type DnsResolver = (name: string, type: string) => Promise<unknown[]>;

/**
 * A resolver over a test DNS, in the shapes of Node's `dns.promises.resolve`
 * (TXT as arrays of strings, MX as `{ priority, exchange }`). A name the map
 * lacks is `ENOTFOUND`; a type it lacks is `ENODATA`. `lookups` records every
 * query, for the explanations.
 *
 * @throws TestDnsError when a record of the map is malformed.
 */
export function testDnsResolver(dns: TestDns, lookups: DnsLookup[] = []): DnsResolver {
  const zone = compile(dns);
  return async (rawName, type) => {
    const name = dnsName(rawName);
    const entry = zone.get(name);
    const records = entry?.[type.toUpperCase() as RecordType];
    lookups.push({ name, type: type.toUpperCase(), found: records !== undefined && records.length > 0 });
    if (entry === undefined) throw dnsError('ENOTFOUND', name, type);
    if (records === undefined || records.length === 0) throw dnsError('ENODATA', name, type);
    return records;
  };
}
