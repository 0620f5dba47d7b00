/**
 * FETCH (RFC 3501 §6.4.5): the items a client asks for, read into a plan,
 * then the values of one message: flags, UID, size, INTERNALDATE, ENVELOPE,
 * BODY/BODYSTRUCTURE, and BODY[section]<partial> from the raw source as
 * received (`BODY[]` is the message byte for byte).
 *
 * @packageDocumentation
 */
import type { LoadedMessage, MailEntry } from '../shared/mailbox.ts';
import { partAt } from '../shared/mime.ts';
import type { MimePart } from '../shared/mime.ts';
import { CommandSyntaxError, internalDate, textOf } from './parser.ts';
import type { Token } from './parser.ts';
import { bodyStructureOf, envelopeOf } from './structure.ts';
import { atom } from './wire.ts';
import type { ImapValue } from './wire.ts';

/** A section of BODY[…]: a part path and what of it. */
interface Section {
  path: number[];
  /** '' (the part's content), HEADER, TEXT, MIME, HEADER.FIELDS or HEADER.FIELDS.NOT. */
  what: string;
  fields: string[];
}

/** One item of a FETCH. */
type FetchItem =
  | { kind: 'simple'; name: 'FLAGS' | 'UID' | 'RFC822.SIZE' | 'INTERNALDATE' | 'ENVELOPE' | 'BODYSTRUCTURE' | 'BODY' }
  | { kind: 'body'; label: string; section: Section; peek: boolean; partial: [number, number | null] | null };

/** What a FETCH asks for. */
export interface FetchPlan {
  items: FetchItem[];
  /** Whether the raw source is needed. */
  needsRaw: boolean;
  /** Whether reading sets \Seen (a BODY[] without PEEK, RFC822, RFC822.TEXT). */
  marksSeen: boolean;
}

const MACROS: Record<string, string[]> = {
  ALL: ['FLAGS', 'INTERNALDATE', 'RFC822.SIZE', 'ENVELOPE'],
  FAST: ['FLAGS', 'INTERNALDATE', 'RFC822.SIZE'],
  FULL: ['FLAGS', 'INTERNALDATE', 'RFC822.SIZE', 'ENVELOPE', 'BODY'],
};

const SIMPLE = new Set(['FLAGS', 'UID', 'RFC822.SIZE', 'INTERNALDATE', 'ENVELOPE', 'BODYSTRUCTURE', 'BODY']);

/** A section spec such as `1.2.HEADER.FIELDS (From To)`. */
function parseSection(spec: string): Section {
  const match = /^((?:\d+\.)*\d+)?\.?(HEADER\.FIELDS\.NOT|HEADER\.FIELDS|HEADER|TEXT|MIME)?\s*(?:\((.*)\))?$/i.exec(spec.trim());
  if (!match) throw new CommandSyntaxError(`BODY[${spec}] names no section (give [], [HEADER], [TEXT], [1.2], [1.MIME] or [HEADER.FIELDS (From)])`);
  const path = match[1] ? match[1].split('.').map(Number) : [];
  if (path.some((n) => n < 1)) throw new CommandSyntaxError(`BODY[${spec}]: part numbers start at 1`);
  const what = (match[2] ?? '').toUpperCase();
  if (what === 'MIME' && path.length === 0) throw new CommandSyntaxError('BODY[MIME] needs a part number, e.g. BODY[1.MIME]');
  const fields = (match[3] ?? '').split(/\s+/).filter((f) => f !== '').map((f) => f.replace(/^"|"$/g, '').toLowerCase());
  if (what.startsWith('HEADER.FIELDS') && fields.length === 0) throw new CommandSyntaxError(`${what} needs a list of header names, e.g. (From Subject)`);
  return { path, what, fields };
}

/** The response label of a section, e.g. `1.HEADER.FIELDS (FROM TO)`. */
function sectionLabel(section: Section): string {
  const parts = [...section.path.map(String), ...(section.what ? [section.what] : [])].join('.');
  return section.fields.length > 0 ? `${parts} (${section.fields.map((f) => f.toUpperCase()).join(' ')})` : parts;
}

/** One FETCH item from its atom. */
function parseItem(name: string): FetchItem[] {
  const upper = name.toUpperCase();
  if (MACROS[upper]) return MACROS[upper].map((n) => ({ kind: 'simple', name: n }) as FetchItem);
  if (SIMPLE.has(upper)) return [{ kind: 'simple', name: upper as 'FLAGS' }];
  const whole: Section = { path: [], what: '', fields: [] };
  if (upper === 'RFC822') return [{ kind: 'body', label: 'RFC822', section: whole, peek: false, partial: null }];
  if (upper === 'RFC822.HEADER') return [{ kind: 'body', label: 'RFC822.HEADER', section: { ...whole, what: 'HEADER' }, peek: true, partial: null }];
  if (upper === 'RFC822.TEXT') return [{ kind: 'body', label: 'RFC822.TEXT', section: { ...whole, what: 'TEXT' }, peek: false, partial: null }];
  const match = /^(BODY(?:\.PEEK)?)\[(.*)\](?:<(\d+)(?:\.(\d+))?>)?$/is.exec(name);
  if (!match) throw new CommandSyntaxError(`FETCH item ${name} is not one this server knows (FLAGS, UID, RFC822.SIZE, INTERNALDATE, ENVELOPE, BODYSTRUCTURE, BODY[…], BODY.PEEK[…])`);
  const section = parseSection(match[2]!);
  const partial: [number, number | null] | null = match[3] === undefined ? null : [Number(match[3]), match[4] === undefined ? null : Number(match[4])];
  return [{ kind: 'body', label: `BODY[${sectionLabel(section)}]${partial ? `<${partial[0]}>` : ''}`, section, peek: match[1]!.toUpperCase() === 'BODY.PEEK', partial }];
}

/**
 * The plan of a FETCH from its item tokens (one atom or a list).
 *
 * @throws CommandSyntaxError for an unknown item.
 */
export function parseFetchItems(token: Token | undefined, withUid: boolean): FetchPlan {
  const names = Array.isArray(token) ? token.map((t) => textOf(t)) : [textOf(token)];
  if (names.length === 0 || names.some((n) => n === null || n === '')) throw new CommandSyntaxError('FETCH needs items, e.g. (FLAGS UID BODY.PEEK[])');
  const items = names.flatMap((n) => parseItem(n!));
  if (withUid && !items.some((i) => i.kind === 'simple' && i.name === 'UID')) items.unshift({ kind: 'simple', name: 'UID' });
  return {
    items,
    needsRaw: items.some((i) => i.kind === 'body' || i.name === 'ENVELOPE' || i.name === 'BODYSTRUCTURE' || i.name === 'BODY'),
    marksSeen: items.some((i) => i.kind === 'body' && !i.peek),
  };
}

/** The header lines of a header block whose name is (or, with `not`, is not) in `fields`, with the ending blank line. */
function headerFields(header: Buffer, fields: readonly string[], not: boolean): Buffer {
  const lines = header.toString('latin1').split(/(?<=\n)/);
  const kept: string[] = [];
  let keep = false;
  for (const line of lines) {
    if (line === '\r\n' || line === '\n') break;
    if (line.startsWith(' ') || line.startsWith('\t')) {
      if (keep) kept.push(line);
      continue;
    }
    const name = line.slice(0, Math.max(0, line.indexOf(':'))).trim().toLowerCase();
    keep = fields.includes(name) !== not;
    if (keep) kept.push(line);
  }
  return Buffer.from(`${kept.join('')}\r\n`, 'latin1');
}

/** The bytes a section names. */
function sectionBytes(message: LoadedMessage, section: Section): Buffer {
  const { raw, mime } = message;
  const part = section.path.length === 0 ? mime : partAt(mime, section.path);
  if (!part) return Buffer.alloc(0);
  if (section.what === '') return section.path.length === 0 ? raw : raw.subarray(part.bodyStart, part.end);
  if (section.what === 'MIME') return raw.subarray(part.headerStart, part.bodyStart);
  const inner: MimePart | null = section.path.length === 0 ? mime : part.message;
  if (!inner) return Buffer.alloc(0);
  if (section.what === 'TEXT') return raw.subarray(inner.bodyStart, inner.end);
  const header = raw.subarray(inner.headerStart, inner.bodyStart);
  return section.what === 'HEADER' ? header : headerFields(header, section.fields, section.what === 'HEADER.FIELDS.NOT');
}

/** The flags of an entry as a list. */
export function flagList(entry: MailEntry): ImapValue[] {
  return [...entry.flags].map(atom);
}

/** The values of one message's FETCH response, in the order asked. */
export function fetchValues(plan: FetchPlan, entry: MailEntry, message: LoadedMessage | null): ImapValue[] {
  const out: ImapValue[] = [];
  for (const item of plan.items) {
    if (item.kind === 'body') {
      let bytes = message ? sectionBytes(message, item.section) : Buffer.alloc(0);
      if (item.partial) bytes = bytes.subarray(item.partial[0], item.partial[1] === null ? undefined : item.partial[0] + item.partial[1]);
      out.push(atom(item.label), bytes);
      continue;
    }
    switch (item.name) {
      case 'FLAGS':
        out.push(atom('FLAGS'), flagList(entry));
        break;
      case 'UID':
        out.push(atom('UID'), entry.uid);
        break;
      case 'RFC822.SIZE':
        out.push(atom('RFC822.SIZE'), entry.size);
        break;
      case 'INTERNALDATE':
        out.push(atom('INTERNALDATE'), internalDate(entry.receivedAt));
        break;
      case 'ENVELOPE':
        out.push(atom('ENVELOPE'), message ? envelopeOf(message.mime) : [null, null, null, null, null, null, null, null, null, null]);
        break;
      default:
        out.push(atom(item.name), message ? bodyStructureOf(message.raw, message.mime, item.name === 'BODYSTRUCTURE') : ['TEXT', 'PLAIN', null, null, null, '7BIT', 0, 0]);
    }
  }
  return out;
}
