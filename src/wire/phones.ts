/**
 * Phones (an inboxkit extension of the API): the number ranges the service
 * hands out, and the wire schemas of `POST /phones`. A phone is an inbox whose
 * local part is its E.164 number, so an SMS is a message of that inbox: the
 * same stream, waits, seq and extraction as an email.
 *
 * @packageDocumentation
 */
import { z } from 'zod';
import { CreatedInboxSchema } from './schemas.ts';

/** The countries a phone number can be asked for. */
export const PHONE_COUNTRIES = ['US', 'CA', 'AU', 'FR'] as const;

/** A country a phone number can be asked for (ISO 3166-1 alpha-2). */
export type PhoneCountry = (typeof PHONE_COUNTRIES)[number];

/**
 * NANPA keeps 555-0100 to 555-0199 for fiction in every area code; these are
 * real area codes, so the numbers pass the validation apps run
 * (libphonenumber-js `isValidPhoneNumber`).
 */
const US_AREA_CODES = ['202', '206', '212', '213', '303', '305', '312', '415', '512', '617'];

/** The same NANPA range in ten Canadian area codes (Canada shares the North American Numbering Plan). */
const CA_AREA_CODES = ['416', '514', '604', '613', '403', '780', '902', '306', '204', '506'];

/** The area codes of a North American country, or null for another country. */
function nanpAreaCodes(country: PhoneCountry): string[] | null {
  return country === 'US' ? US_AREA_CODES : country === 'CA' ? CA_AREA_CODES : null;
}

/** ACMA's 30 mobile numbers for drama and fiction (0491 57x xxx), national significant number without the 0. */
const AU_FICTION = [
  '491570006', '491570156', '491570157', '491570158', '491570159', '491570110', '491570313', '491570737',
  '491571266', '491571491', '491571804', '491572549', '491572665', '491572983', '491573770', '491573087',
  '491574118', '491574632', '491575254', '491575789', '491576398', '491576801', '491577426', '491577644',
  '491578957', '491578148', '491578888', '491579212', '491579760', '491579455',
];

/** How many numbers a country's fiction range holds. */
export function phoneRangeSize(country: PhoneCountry): number {
  const areas = nanpAreaCodes(country);
  if (areas) return areas.length * 100;
  if (country === 'AU') return AU_FICTION.length;
  return 10_000; // ARCEP: 06 39 98 00 00 to 06 39 98 99 99
}

/** The `index`-th number (0-based, below {@link phoneRangeSize}) of a country's fiction range, in E.164. */
export function phoneNumberAt(country: PhoneCountry, index: number): string {
  const areas = nanpAreaCodes(country);
  if (areas) return `+1${areas[Math.floor(index / 100) % areas.length]}55501${String(index % 100).padStart(2, '0')}`;
  if (country === 'AU') return `+61${AU_FICTION[index % AU_FICTION.length]}`;
  return `+3363998${String(index % 10_000).padStart(4, '0')}`;
}

/** An E.164 number: `+`, a country code not starting with 0, at most 15 digits. */
export const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

/** Whether an inbox local part is a phone number (the inbox is a phone). */
export function isPhoneLocalPart(localPart: string): boolean {
  return E164_PATTERN.test(localPart);
}

/** Whether a number is one the service hands out (inside a fiction range). */
export function isFictionNumber(number: string): boolean {
  return PHONE_COUNTRIES.some((country) => {
    const size = phoneRangeSize(country);
    if (country === 'FR') return /^\+3363998\d{4}$/.test(number);
    const areas = nanpAreaCodes(country);
    if (areas) return /^\+1\d{3}55501\d{2}$/.test(number) && areas.includes(number.slice(2, 5));
    for (let i = 0; i < size; i++) if (phoneNumberAt(country, i) === number) return true;
    return false;
  });
}

/** The body of `POST /phones`. */
export const CreatePhoneRequestSchema = z
  .object({
    country: z.enum(PHONE_COUNTRIES).optional().meta({ description: 'Country of the number; default US' }),
    label: z.string().max(200).optional(),
  })
  .strict()
  .meta({ id: 'CreatePhoneRequest' });

/** The answer of `POST /phones`: the phone's inbox, its token, and its number. */
export const CreatedPhoneSchema = CreatedInboxSchema.extend({
  phoneNumber: z.string().regex(E164_PATTERN).meta({ description: 'The number in E.164, from a range kept for fiction (never a real subscriber)' }),
  country: z.enum(PHONE_COUNTRIES),
}).meta({ id: 'CreatedPhone' });

/** What `POST /phones` accepts. */
export type CreatePhoneRequest = z.infer<typeof CreatePhoneRequestSchema>;
/** What `POST /phones` answers. */
export type CreatedPhone = z.infer<typeof CreatedPhoneSchema>;

/** Header the service sets on every SMS it stores: the provider API it came through (`twilio`, `twilio-verify`, `sns`, `vonage`, `vonage-verify`, `inboxkit`). */
export const SMS_HEADER = 'x-inboxkit-sms';

/** Longest text `POST /sms` takes, in characters (Twilio's limit). */
export const MAX_SMS_TEXT = 1600;

/** The body of `POST /sms`, the plain intake for apps with a sender of their own. */
export const SendSmsRequestSchema = z
  .object({
    to: z.string().regex(E164_PATTERN, 'must be an E.164 number such as +12025550123').meta({ description: 'The phone to text, E.164' }),
    from: z.string().min(1).max(64).optional().meta({ description: 'The sender: a number, short code or sender id; default "inboxkit"' }),
    text: z.string().min(1).max(MAX_SMS_TEXT).meta({ description: `The text, 1 to ${MAX_SMS_TEXT} characters` }),
  })
  .strict()
  .meta({ id: 'SendSmsRequest' });

/** The answer of `POST /sms`: the SMS, stored now, queued behind the phone's delay, or accepted and undelivered (the phone's fault). */
export const SentSmsSchema = z
  .object({
    messageId: z.string().nullable().meta({ description: 'The stored message; null when it is not stored yet (`queued`) or never will be (`undelivered`)' }),
    inboxId: z.string(),
    seq: z.number().int().positive().nullable().meta({ description: 'Its seq in the phone; null with `messageId`' }),
    status: z.enum(['delivered', 'queued', 'undelivered']).optional().meta({ description: 'Absent from servers before per-number faults (then `delivered`). `delivered`: stored now; `queued`: stored after the delay the phone\'s fault sets (`delaySms`); `undelivered`: accepted and never stored (`failSms(\'undeliverable\')`)' }),
    to: z.string(),
    segments: z.number().int().positive().meta({ description: 'Parts the text would take (160 GSM-7 or 70 UCS-2 characters for one, 153 or 67 each beyond)' }),
  })
  .meta({ id: 'SentSms' });

/** What `POST /sms` accepts. */
export type SendSmsRequest = z.infer<typeof SendSmsRequestSchema>;
/** What `POST /sms` answers. */
export type SentSms = z.infer<typeof SentSmsSchema>;
