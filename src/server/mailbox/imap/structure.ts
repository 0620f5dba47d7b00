/**
 * ENVELOPE and BODYSTRUCTURE (RFC 3501 §7.4.2) of a parsed message: header
 * values as received (encoded words are the client's to decode), addresses
 * split into name, route, mailbox and host, and each part's type, parameters,
 * encoding, size and, for text, its line count.
 *
 * @packageDocumentation
 */
import { headerOf, parseParameterized } from '../shared/mime.ts';
import type { MimePart } from '../shared/mime.ts';
import type { ImapValue } from './wire.ts';

/** Splits an address list at commas outside quotes, comments and angle brackets. */
function splitAddresses(value: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  let depth = 0;
  let angle = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quoted) {
      if (c === '\\') {
        current += c + (value[i + 1] ?? '');
        i++;
        continue;
      }
      if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === '<') angle = true;
    else if (c === '>') angle = false;
    else if ((c === ',' || c === ';') && depth === 0 && !angle) {
      out.push(current);
      current = '';
      continue;
    }
    current += c;
  }
  out.push(current);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

/** One address as IMAP writes it: (name route mailbox host). */
function addressOf(text: string): ImapValue[] {
  const angle = /<([^>]*)>/.exec(text);
  const spec = (angle ? angle[1]! : text.replace(/\([^)]*\)/g, '')).trim();
  let name: string | null = angle ? text.slice(0, angle.index).trim() : null;
  if (!angle) {
    const comment = /\(([^)]*)\)/.exec(text);
    name = comment ? comment[1]!.trim() : null;
  }
  if (name !== null) {
    if (name.startsWith('"') && name.endsWith('"') && name.length >= 2) name = name.slice(1, -1).replace(/\\(.)/g, '$1');
    if (name === '') name = null;
  }
  const at = spec.lastIndexOf('@');
  return at === -1 ? [name, null, spec || null, null] : [name, null, spec.slice(0, at), spec.slice(at + 1)];
}

/** An address list header as IMAP writes it, groups included; NIL when absent or empty. */
function addressList(value: string | null): ImapValue {
  if (value === null) return null;
  const out: ImapValue[] = [];
  let rest = value;
  // A group: `name: a, b;` becomes (NIL NIL name NIL) … (NIL NIL NIL NIL).
  const group = /^\s*((?:"[^"]*"|[^:"<>@,])+):([^;]*);?/.exec(rest);
  if (group && !group[1]!.includes('@')) {
    out.push([null, null, group[1]!.trim(), null], ...splitAddresses(group[2]!).map(addressOf), [null, null, null, null]);
    rest = rest.slice(group[0].length);
  }
  out.push(...splitAddresses(rest).map(addressOf));
  return out.length > 0 ? out : null;
}

/** The ENVELOPE of a message part (the root, or the message a message/rfc822 part carries). */
export function envelopeOf(part: MimePart): ImapValue[] {
  const from = headerOf(part, 'from');
  return [
    headerOf(part, 'date'),
    headerOf(part, 'subject'),
    addressList(from),
    addressList(headerOf(part, 'sender') ?? from),
    addressList(headerOf(part, 'reply-to') ?? from),
    addressList(headerOf(part, 'to')),
    addressList(headerOf(part, 'cc')),
    addressList(headerOf(part, 'bcc')),
    headerOf(part, 'in-reply-to'),
    headerOf(part, 'message-id'),
  ];
}

/** A parameter list: ("NAME" "value" …), or NIL. */
function paramList(params: Array<[string, string]>): ImapValue {
  return params.length === 0 ? null : params.flatMap(([key, value]) => [key.toUpperCase(), value]);
}

/** (disposition (params)) or NIL. */
function dispositionOf(part: MimePart): ImapValue {
  const value = headerOf(part, 'content-disposition');
  if (!value) return null;
  const parsed = parseParameterized(value);
  return [parsed.value.toUpperCase(), paramList(parsed.params)];
}

/** Lines of a part's body. */
function linesOf(raw: Buffer, part: MimePart): number {
  let lines = 0;
  for (let i = raw.indexOf(10, part.bodyStart); i !== -1 && i < part.end; i = raw.indexOf(10, i + 1)) lines++;
  return part.end > part.bodyStart && raw[part.end - 1] !== 10 ? lines + 1 : lines;
}

/** The BODYSTRUCTURE (`extended`) or BODY of a part. */
export function bodyStructureOf(raw: Buffer, part: MimePart, extended: boolean): ImapValue[] {
  const language = headerOf(part, 'content-language');
  const tail: ImapValue[] = [dispositionOf(part), language ? language.split(',').map((l) => l.trim()) : null, headerOf(part, 'content-location')];
  if (part.type === 'multipart') {
    const children: ImapValue[] = part.children.length > 0 ? part.children.map((child) => bodyStructureOf(raw, child, extended)) : [bodyStructureOf(raw, { ...part, type: 'text', subtype: 'plain', params: [], children: [] }, extended)];
    return [...children, part.subtype.toUpperCase(), ...(extended ? [paramList(part.params), ...tail] : [])];
  }
  const fields: ImapValue[] = [
    part.type.toUpperCase(),
    part.subtype.toUpperCase(),
    paramList(part.params),
    headerOf(part, 'content-id'),
    headerOf(part, 'content-description'),
    (headerOf(part, 'content-transfer-encoding') ?? '7BIT').toUpperCase(),
    part.end - part.bodyStart,
  ];
  if (part.message) fields.push(envelopeOf(part.message), bodyStructureOf(raw, part.message, extended), linesOf(raw, part));
  else if (part.type === 'text') fields.push(linesOf(raw, part));
  if (extended) fields.push(headerOf(part, 'content-md5'), ...tail);
  return fields;
}

