/**
 * Writing IMAP values (RFC 3501 §4): NIL, numbers, atoms, quoted strings,
 * literals (for bytes and for text a quoted string cannot carry) and
 * parenthesized lists.
 *
 * @packageDocumentation
 */

/** An atom, written as it is (`\Seen`, `BODY[]`, `INBOX`). */
export class Atom {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
}

/** A value of an IMAP response. */
export type ImapValue = null | number | string | Buffer | Atom | ImapValue[];

/** Shorthand for an {@link Atom}. */
export function atom(value: string): Atom {
  return new Atom(value);
}

/** Text a quoted string can carry: printable ASCII, not too long. */
const QUOTABLE = /^[\x20-\x7e]{0,1000}$/;

/** Appends the wire form of a value to `out`. */
export function writeValue(value: ImapValue, out: Buffer[]): void {
  if (value === null) out.push(Buffer.from('NIL'));
  else if (typeof value === 'number') out.push(Buffer.from(String(value)));
  else if (value instanceof Atom) out.push(Buffer.from(value.value, 'latin1'));
  else if (Buffer.isBuffer(value)) {
    out.push(Buffer.from(`{${value.length}}\r\n`), value);
  } else if (typeof value === 'string') {
    if (QUOTABLE.test(value)) out.push(Buffer.from(`"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`, 'latin1'));
    else writeValue(Buffer.from(value, 'utf8'), out);
  } else {
    out.push(Buffer.from('('));
    value.forEach((item, i) => {
      if (i > 0) out.push(Buffer.from(' '));
      writeValue(item, out);
    });
    out.push(Buffer.from(')'));
  }
}

/** The wire form of values separated by spaces (the items of a response line), without the CRLF. */
export function wireOf(values: readonly ImapValue[]): Buffer {
  const out: Buffer[] = [];
  values.forEach((value, i) => {
    if (i > 0) out.push(Buffer.from(' '));
    writeValue(value, out);
  });
  return Buffer.concat(out);
}
