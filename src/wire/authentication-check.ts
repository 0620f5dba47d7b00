/**
 * Wire schema of the authentication-check extension
 * (`POST /messages/{id}/authentication`): DKIM, SPF, DMARC and ARC of a stored
 * message verified against a test DNS the caller sends (never the network).
 * Not part of the Disposable Inbox API specification; servers that do not
 * offer it answer 404.
 *
 * @packageDocumentation
 */
import { z } from 'zod';

/** Most names a test DNS sent to the service may hold. */
export const MAX_TEST_DNS_NAMES = 200;

const record = z.string().max(4096);
const records = z.union([record, z.array(record).max(32)]);

/** The records of one name: TXT as a string or strings, or an object by type. */
export const TestDnsEntrySchema = z.union([
  records,
  z
    .object({ TXT: records.optional(), A: records.optional(), AAAA: records.optional(), MX: z.union([records, z.object({ priority: z.number().int().min(0).max(65535), exchange: record }), z.array(z.union([record, z.object({ priority: z.number().int().min(0).max(65535), exchange: record })])).max(32)]).optional(), CNAME: records.optional(), PTR: records.optional() })
    .strict(),
]);

/** The body of an authentication check. */
export const AuthenticationCheckRequestSchema = z
  .object({
    dns: z
      .record(z.string().min(1).max(253), TestDnsEntrySchema)
      .refine((map) => Object.keys(map).length <= MAX_TEST_DNS_NAMES, { message: `at most ${MAX_TEST_DNS_NAMES} names` })
      .meta({
        description:
          'The test DNS: each DNS name (`acme.example`, `mail._domainkey.acme.example`, `_dmarc.acme.example`) to its TXT records (a string or an array of strings) or to `{ TXT, A, AAAA, MX, CNAME, PTR }` — the map of `use: { inboxkit: { dns } }`. A name it lacks does not exist: nothing is looked up on the network.',
      }),
    clientAddress: z.union([z.ipv4(), z.ipv6()]).optional().meta({ description: 'The SMTP client address SPF is checked for; default: the one recorded at intake (127.0.0.1 when none)' }),
    helo: z.string().min(1).max(253).optional().meta({ description: 'The HELO name; default: the one recorded at intake' }),
    mailFrom: z.string().max(320).optional().meta({ description: 'The envelope sender (`MAIL FROM`); default: the one recorded at intake' }),
  })
  .meta({ id: 'AuthenticationCheckRequest' });

const reason = z.string().nullable().meta({ description: 'Why it did not pass and what to do; null on a pass' });

/** One DKIM signature's outcome. */
export const DkimSignatureCheckSchema = z
  .object({
    domain: z.string().meta({ description: 'The signing domain (`d=`); empty when the message is not signed' }),
    selector: z.string().meta({ description: 'The selector (`s=`); its key is read at `<selector>._domainkey.<domain>`' }),
    result: z.string().meta({ description: '`pass`, `fail`, `neutral`, `none`, `policy`, `temperror`, `permerror`, or `skipped` past the bound of 10 signatures per message' }),
    reason,
    aligned: z.boolean().meta({ description: 'Whether `d=` aligns with the From domain (relaxed)' }),
  })
  .meta({ id: 'DkimSignatureCheck' });

/** The result of an authentication check. */
export const AuthenticationCheckSchema = z
  .object({
    dkim: z.array(DkimSignatureCheckSchema).meta({ description: 'Every DKIM signature in header order; one `none` entry when the message is not signed' }),
    spf: z.object({ result: z.string(), domain: z.string().nullable(), reason }),
    dmarc: z.object({ result: z.string(), domain: z.string().nullable(), policy: z.string().nullable(), reason }),
    arc: z.object({ result: z.string(), reason }),
    session: z
      .object({ mailFrom: z.string(), clientAddress: z.string(), helo: z.string().nullable() })
      .meta({ description: 'The SMTP session the checks used' }),
    authenticationResults: z.string().meta({ description: 'The `Authentication-Results` header value mailauth made of it' }),
    lookups: z
      .array(z.object({ name: z.string(), type: z.string(), found: z.boolean() }))
      .meta({ description: 'Every name and type the checks asked the test DNS, in order; `found: false` is a missing name or type' }),
  })
  .meta({ id: 'AuthenticationCheck' });

/** An authentication check's result. */
export type AuthenticationCheck = z.infer<typeof AuthenticationCheckSchema>;
/** The body of an authentication check. */
export type AuthenticationCheckRequest = z.infer<typeof AuthenticationCheckRequestSchema>;
