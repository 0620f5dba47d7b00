/**
 * Independent checks on raw messages and PDF bytes (deliberately not sharing code
 * with the app, so a bug in the app's writers cannot hide itself).
 */
import { load } from 'cheerio';
import type { ReceivedMail } from './fixtures.ts';

/** One MIME leaf part of a raw message: its header block and encoded body. */
export interface RawPart {
  headers: string;
  body: string;
}

/** Splits a raw message into its leaf parts (headers + still-encoded body). */
export function rawParts(raw: string): RawPart[] {
  const parts: RawPart[] = [];
  const visit = (entity: string): void => {
    const split = entity.indexOf('\r\n\r\n');
    const headers = split === -1 ? entity : entity.slice(0, split);
    const body = split === -1 ? '' : entity.slice(split + 4);
    const boundary = /boundary="?([^";\r\n]+)"?/i.exec(headers.replace(/\r\n[ \t]+/g, ' '))?.[1];
    if (!/^content-type:\s*multipart\//im.test(headers) || !boundary) {
      parts.push({ headers, body });
      return;
    }
    const pieces = body.split(`--${boundary}`);
    // pieces[0] is the preamble, the last one starts with "--" (the closing delimiter).
    for (const piece of pieces.slice(1)) {
      if (piece.startsWith('--')) break;
      visit(piece.replace(/^\r\n/, '').replace(/\r\n$/, ''));
    }
  };
  visit(raw);
  return parts;
}

/** The raw (encoded) part with the given content type; throws when missing. */
export function rawPart(mail: ReceivedMail, contentType: string): RawPart {
  const found = rawParts(mail.raw).find((p) => new RegExp(`^content-type:\\s*${contentType.replace('/', '\\/')}`, 'im').test(p.headers));
  if (!found) throw new Error(`No ${contentType} part in the message "${mail.parsed.subject ?? ''}"`);
  return found;
}

/** How an href appears in quoted-printable HTML source: `&` as `&amp;`, `=` as `=3D`. */
export function qpEncodedHref(href: string): string {
  return href.replace(/&/g, '&amp;').replace(/=/g, '=3D');
}

/** The decoded href of the first link in the HTML part whose text matches `text`. */
export function linkByText(mail: ReceivedMail, text: RegExp): string {
  const $ = load(typeof mail.parsed.html === 'string' ? mail.parsed.html : '');
  const anchor = $('a').filter((_, el) => text.test($(el).text())).first();
  const href = anchor.attr('href');
  if (!href) throw new Error(`No link with text ${text} in "${mail.parsed.subject ?? ''}"`);
  return href;
}

/** Facts about a PDF established by reading its bytes. */
export interface PdfFacts {
  /** Number of in-use objects in the xref table. */
  objectCount: number;
  /** Text shown with Tj operators, in order. */
  texts: string[];
}

/**
 * Checks a PDF's structure: header, trailer, `startxref` pointing at the xref
 * table, every in-use xref offset pointing at `n 0 obj`, and every stream's
 * `/Length` matching its bytes. Throws naming the first thing that is wrong.
 */
export function checkPdf(pdf: Buffer): PdfFacts {
  const bytes = pdf.toString('latin1');
  if (!bytes.startsWith('%PDF-')) throw new Error('The PDF does not start with %PDF-');
  if (!/%%EOF\s*$/.test(bytes)) throw new Error('The PDF does not end with %%EOF');
  const startxref = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(bytes);
  if (!startxref) throw new Error('The PDF has no startxref before %%EOF');
  const xrefAt = Number(startxref[1]);
  if (bytes.slice(xrefAt, xrefAt + 4) !== 'xref') throw new Error(`startxref ${xrefAt} does not point at "xref"`);
  const section = /^xref\r?\n(\d+) (\d+)\r?\n/.exec(bytes.slice(xrefAt));
  if (!section) throw new Error('The xref table has no subsection header');
  const first = Number(section[1]);
  const count = Number(section[2]);
  const entriesAt = xrefAt + section[0].length;
  let objectCount = 0;
  for (let i = 0; i < count; i++) {
    const entry = bytes.slice(entriesAt + i * 20, entriesAt + (i + 1) * 20);
    const match = /^(\d{10}) (\d{5}) ([nf])(?: \r| \n|\r\n)$/.exec(entry);
    if (!match) throw new Error(`xref entry ${i} is not 20 bytes of "oooooooooo ggggg n": ${JSON.stringify(entry)}`);
    if (match[3] !== 'n') continue;
    const objectNumber = first + i;
    const offset = Number(match[1]);
    const expected = `${objectNumber} ${Number(match[2])} obj`;
    if (bytes.slice(offset, offset + expected.length) !== expected) {
      throw new Error(`xref says object ${objectNumber} is at ${offset}, but the bytes there are ${JSON.stringify(bytes.slice(offset, offset + 12))}`);
    }
    objectCount++;
  }
  const trailerSize = /trailer\s*<<[^]*?\/Size (\d+)/.exec(bytes.slice(xrefAt));
  if (Number(trailerSize?.[1]) !== first + count) throw new Error(`trailer /Size ${trailerSize?.[1]} does not match the xref's ${first + count} entries`);

  const texts: string[] = [];
  for (const stream of bytes.matchAll(/\/Length (\d+)[^]*?>>\s*?\r?\nstream\r?\n/g)) {
    const start = stream.index + stream[0].length;
    const length = Number(stream[1]);
    if (!/^\r?\nendstream/.test(bytes.slice(start + length)) && !bytes.slice(start + length).startsWith('endstream')) {
      throw new Error(`A stream's /Length ${length} does not end where "endstream" starts`);
    }
    for (const text of bytes.slice(start, start + length).matchAll(/\(((?:\\.|[^\\)])*)\)\s*Tj/g)) {
      texts.push(text[1]!.replace(/\\(.)/g, '$1'));
    }
  }
  return { objectCount, texts };
}
