/**
 * The test DNS of sender authentication (`testDnsResolver`), case by case
 * against what docs/email-checks.md ("The test DNS") promises: the types a
 * name can have, names matched whatever their case and trailing dot, entries
 * of one name merged, a missing name NXDOMAIN and a missing type NODATA with
 * nothing asked of the network, and malformed records refused, named, when the
 * resolver is made (before anything runs).
 */
import dns from 'node:dns';
import { createSocket } from 'node:dgram';
import { test, expect } from '@playwright/test';
import { InboxkitError } from '../../../src/client/index.ts';
import type { TestDns } from '../../../src/client/index.ts';
import { testDnsResolver } from '../../../src/checks/test-dns.ts';

/** What a query answers: the records, or the code of the error mailauth reads (`ENOTFOUND`: NXDOMAIN, `ENODATA`: NODATA). */
async function answer(map: TestDns, name: string, type: string): Promise<unknown[] | string> {
  return testDnsResolver(map)(name, type).then(
    (records) => records,
    (error: unknown) => (error as { code?: string }).code ?? String(error),
  );
}

test.describe('the types of a test DNS', () => {
  const cases: Array<[string, TestDns, string, string, unknown[]]> = [
    ['a string is the name\'s one TXT record', { 'acme.example': 'v=spf1 -all' }, 'acme.example', 'TXT', [['v=spf1 -all']]],
    ['an array of strings is the name\'s TXT records', { 'acme.example': ['v=spf1 -all', 'google-site-verification=x'] }, 'acme.example', 'TXT', [['v=spf1 -all'], ['google-site-verification=x']]],
    ['TXT in a record set', { 'acme.example': { TXT: 'v=spf1 -all' } }, 'acme.example', 'TXT', [['v=spf1 -all']]],
    ['A records', { 'mx.acme.example': { A: ['127.0.0.1', '192.0.2.7'] } }, 'mx.acme.example', 'A', ['127.0.0.1', '192.0.2.7']],
    ['AAAA records', { 'mx.acme.example': { AAAA: ['::1'] } }, 'mx.acme.example', 'AAAA', ['::1']],
    ['an MX record written \'10 mx.host\'', { 'acme.example': { MX: ['10 mx.acme.example'] } }, 'acme.example', 'MX', [{ priority: 10, exchange: 'mx.acme.example' }]],
    ['an MX record written { priority, exchange }', { 'acme.example': { MX: [{ priority: 20, exchange: 'mx2.acme.example' }] } }, 'acme.example', 'MX', [{ priority: 20, exchange: 'mx2.acme.example' }]],
    ['a CNAME record', { 'www.acme.example': { CNAME: 'acme.example' } }, 'www.acme.example', 'CNAME', ['acme.example']],
    ['a PTR record', { '1.0.0.127.in-addr.arpa': { PTR: ['mx.acme.example'] } }, '1.0.0.127.in-addr.arpa', 'PTR', ['mx.acme.example']],
  ];
  for (const [what, map, name, type, records] of cases) {
    test(`${what} answers a ${type} query in the shape of Node's resolver`, async () => {
      expect(await answer(map, name, type)).toEqual(records);
    });
  }
});

test.describe('names are case- and trailing-dot-insensitive, and entries of one name merge', () => {
  const SPF = 'v=spf1 ip4:127.0.0.1 -all';
  const cases: Array<[string, TestDns, string, string, unknown[]]> = [
    ['a name given in capitals answers a query in lower case', { 'ACME.Example': SPF }, 'acme.example', 'TXT', [[SPF]]],
    ['a name given in lower case answers a query in capitals', { 'acme.example': SPF }, 'Acme.EXAMPLE', 'TXT', [[SPF]]],
    ['a name given with a trailing dot answers a query without one', { 'acme.example.': SPF }, 'acme.example', 'TXT', [[SPF]]],
    ['a name given without a trailing dot answers a query with one', { 'acme.example': SPF }, 'acme.example.', 'TXT', [[SPF]]],
    ['a DKIM selector name matches whatever its case', { 'Mail._DomainKey.Acme.Example.': 'v=DKIM1; k=rsa; p=MIIB' }, 'mail._domainkey.acme.example', 'TXT', [['v=DKIM1; k=rsa; p=MIIB']]],
    ['two entries of one name merge their TXT records', { 'acme.example': [SPF], 'ACME.example.': ['site-verification=1'] }, 'acme.example', 'TXT', [[SPF], ['site-verification=1']]],
    ['two entries of one name merge their types (TXT of one)', { 'acme.example': SPF, 'Acme.Example': { A: ['127.0.0.1'] } }, 'acme.example', 'TXT', [[SPF]]],
    ['two entries of one name merge their types (A of the other)', { 'acme.example': SPF, 'Acme.Example': { A: ['127.0.0.1'] } }, 'acme.example', 'A', ['127.0.0.1']],
  ];
  for (const [what, map, name, type, records] of cases) {
    test(what, async () => {
      expect(await answer(map, name, type)).toEqual(records);
    });
  }
});

test.describe('a name the map lacks is NXDOMAIN, a type it lacks NODATA', () => {
  const MAP: TestDns = {
    'acme.example': 'v=spf1 -all',
    '_dmarc.acme.example': 'v=DMARC1; p=reject',
    'mx.acme.example': { A: ['127.0.0.1'] },
  };
  const cases: Array<[string, string, string, 'ENOTFOUND' | 'ENODATA']> = [
    ['a name the map lacks does not exist (NXDOMAIN)', 'other.example', 'TXT', 'ENOTFOUND'],
    ['a subdomain of a name in the map does not exist (no wildcards)', 'mail._domainkey.acme.example', 'TXT', 'ENOTFOUND'],
    ['a real name of the internet that the map lacks does not exist', 'example.com', 'A', 'ENOTFOUND'],
    ['a name without the asked type has no data (NODATA)', 'mx.acme.example', 'TXT', 'ENODATA'],
    ['a name with TXT only has no A record (NODATA)', 'acme.example', 'A', 'ENODATA'],
    ['a name with TXT only has no MX record (NODATA)', 'acme.example', 'MX', 'ENODATA'],
  ];
  for (const [what, name, type, code] of cases) {
    test(`${what}: ${name} ${type} is ${code}`, async () => {
      expect(await answer(MAP, name, type)).toBe(code);
    });
  }

  test('the errors are Node resolver errors naming the name and saying it is the test DNS', async () => {
    const resolve = testDnsResolver(MAP);
    await expect(resolve('Other.Example.', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND', hostname: 'other.example', message: 'no such name other.example in the test DNS' });
    await expect(resolve('mx.acme.example', 'TXT')).rejects.toMatchObject({ code: 'ENODATA', hostname: 'mx.acme.example', message: 'no TXT record mx.acme.example in the test DNS' });
  });

  test('nothing is looked up on the network: a DNS server that counts queries gets none', async () => {
    // Point Node's resolver at a local server that never answers: a query that reached the network would show here, and hang.
    const sentinel = createSocket('udp4');
    let queries = 0;
    sentinel.on('message', () => (queries += 1));
    await new Promise<void>((resolve) => sentinel.bind(0, '127.0.0.1', resolve));
    const servers = dns.getServers();
    const promiseServers = dns.promises.getServers();
    dns.setServers([`127.0.0.1:${sentinel.address().port}`]);
    dns.promises.setServers([`127.0.0.1:${sentinel.address().port}`]);
    try {
      const resolve = testDnsResolver(MAP);
      const pending = Symbol('still pending after 2 s: asked the network?');
      const answers = await Promise.race([
        Promise.all(
          [['example.com', 'A'], ['example.com', 'TXT'], ['acme.example', 'MX'], ['mx.acme.example', 'AAAA'], ['acme.example', 'TXT']].map(([name, type]) =>
            resolve(name as string, type as string).then(
              (records) => records,
              (error: { code?: string }) => error.code,
            ),
          ),
        ),
        new Promise((resolve) => setTimeout(() => resolve(pending), 2_000)),
      ]);
      expect(answers).toEqual(['ENOTFOUND', 'ENOTFOUND', 'ENODATA', 'ENODATA', [['v=spf1 -all']]]);
      expect(queries).toBe(0);
    } finally {
      dns.setServers(servers);
      dns.promises.setServers(promiseServers);
      sentinel.close();
    }
  });
});

test.describe('a malformed record is refused before anything runs, naming it', () => {
  // [the record, the test DNS, what the error must say (the name, the record and what is wrong)]
  const cases: Array<[string, TestDns, RegExp]> = [
    ['a DKIM record without p=', { 'mail._domainkey.acme.example': 'v=DKIM1; k=rsa' }, /"mail\._domainkey\.acme\.example" is a DKIM key record without a p= tag \("v=DKIM1; k=rsa"\)/],
    ['a DKIM record without p= in a record set, its name in capitals', { 'Mail._DomainKey.acme.example': { TXT: ['v=DKIM1; k=rsa; t=s'] } }, /"mail\._domainkey\.acme\.example" is a DKIM key record without a p= tag \("v=DKIM1; k=rsa; t=s"\)/],
    ['a _dmarc. record not starting v=DMARC1;', { '_dmarc.acme.example': 'p=reject; v=DMARC1' }, /"_dmarc\.acme\.example" is a DMARC record that does not start with 'v=DMARC1;' \("p=reject; v=DMARC1"\)/],
    ['a _dmarc. record of another version', { '_dmarc.acme.example': 'v=DMARC2; p=none' }, /"_dmarc\.acme\.example" is a DMARC record that does not start with 'v=DMARC1;' \("v=DMARC2; p=none"\)/],
    ['an SPF record with a space before v=spf1', { 'acme.example': ' v=spf1 -all' }, /"acme\.example" is an SPF record that does not start with exactly 'v=spf1 ' \(" v=spf1 -all"\)/],
    ['an SPF record with spaces around its =', { 'acme.example': 'v = spf1 -all' }, /"acme\.example" is an SPF record that does not start with exactly 'v=spf1 ' \("v = spf1 -all"\)/],
    ['an SPF record without the space after v=spf1', { 'acme.example': 'v=spf1-all' }, /"acme\.example" is an SPF record that does not start with exactly 'v=spf1 ' \("v=spf1-all"\)/],
    ['an SPF record with a comma after v=spf1', { 'acme.example': 'v=spf1,ip4:127.0.0.1 -all' }, /"acme\.example" is an SPF record that does not start with exactly 'v=spf1 ' \("v=spf1,ip4:127\.0\.0\.1 -all"\)/],
    ['an A record that is IPv6', { 'mx.acme.example': { A: ['::1'] } }, /"mx\.acme\.example" has an A record that is not an IPv4 address \("::1"\)/],
    ['an A record that is a host name', { 'mx.acme.example': { A: 'localhost' } }, /"mx\.acme\.example" has an A record that is not an IPv4 address \("localhost"\)/],
    ['an A record out of range', { 'mx.acme.example': { A: ['127.0.0.256'] } }, /"mx\.acme\.example" has an A record that is not an IPv4 address \("127\.0\.0\.256"\)/],
    ['an MX string without a priority', { 'acme.example': { MX: ['mx.acme.example'] } }, /"acme\.example" has an MX record "mx\.acme\.example" that is not '<priority> <host>'/],
    ['an MX object without a priority', { 'acme.example': { MX: [{ exchange: 'mx.acme.example' } as never] } }, /"acme\.example" has an MX record \{"exchange":"mx\.acme\.example"\} that is neither '<priority> <host>' nor \{ priority, exchange \}/],
    ['an unknown type', { 'acme.example': { SRV: ['0 5 5060 sip.acme.example'] } as never }, /"acme\.example" has records of type "SRV", which the test DNS does not know \(it knows TXT, A, AAAA, MX, CNAME, PTR\)/],
  ];
  for (const [what, map, message] of cases) {
    test(`${what} is refused when the resolver is made, with an error naming it`, () => {
      let error: unknown;
      try {
        testDnsResolver(map);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InboxkitError);
      expect((error as Error).message).toMatch(/^test DNS: the record of /);
      expect((error as Error).message).toMatch(message);
    });
  }

  test('one malformed record refuses the whole map, whatever name is asked afterwards', () => {
    expect(() => testDnsResolver({ 'acme.example': 'v=spf1 -all', '_dmarc.acme.example': 'v=DMARC1; p=reject', 'mail._domainkey.acme.example': 'v=DKIM1; k=rsa' })).toThrow(
      /"mail\._domainkey\.acme\.example" is a DKIM key record without a p= tag/,
    );
  });

  const wellFormed: Array<[string, TestDns]> = [
    ['a DKIM record with p=', { 'mail._domainkey.acme.example': 'v=DKIM1; k=rsa; p=MIIBIjANBg' }],
    ['a revoked DKIM key (an empty p=)', { 'mail._domainkey.acme.example': 'v=DKIM1; p=' }],
    ['a DMARC record', { '_dmarc.acme.example': 'v=DMARC1; p=reject; rua=mailto:d@acme.example' }],
    ['an SPF record starting v=spf1 and a space', { 'acme.example': 'v=spf1 ip4:127.0.0.1 -all' }],
    ['an SPF record that is only v=spf1 (RFC 7208: the version ends at a space or the end)', { 'acme.example': 'v=spf1' }],
    ['an SPF record in capitals (RFC 7208 compares the version case-insensitively)', { 'acme.example': 'V=SPF1 -all' }],
    ['a TXT record that is not SPF, DKIM or DMARC', { 'acme.example': 'google-site-verification=abc' }],
  ];
  for (const [what, map] of wellFormed) {
    test(`${what} is accepted`, () => {
      expect(() => testDnsResolver(map)).not.toThrow();
    });
  }
});
