/**
 * The MIME structure of a stored raw message, as IMAP reads it: each part's
 * header and body as byte ranges of the raw source (so BODY[1.2] is served
 * exactly as received), its Content-Type, and its parts (multipart) or the
 * message it carries (message/rfc822). Depth and part count are bounded; past
 * them the rest is one opaque part.
 *
 * @packageDocumentation
 */

/** One MIME part (the message itself is the root). Offsets are into the raw source. */
export interface MimePart {
  /** Start of the header. */
  headerStart: number;
  /** Start of the body (just after the blank line ending the header). */
  bodyStart: number;
  /** End of the body. */
  end: number;
  /** Header fields in order: lower-cased name, unfolded value as received. */
  headers: Array<[string, string]>;
  /** Lower-cased media type and subtype, e.g. `text` and `plain`. */
  type: string;
  subtype: string;
  /** Content-Type parameters in order, names lower-cased. */
  params: Array<[string, string]>;
  /** The parts of a multipart. */
  children: MimePart[];
  /** The message a message/rfc822 part carries. */
  message: MimePart | null;
}

/** Deepest nesting of parts read; deeper content is one opaque part. */
const MAX_DEPTH = 16;
/** Most parts read in one message; the rest are left inside their parent. */
const MAX_PARTS = 1000;

/** Where the header ends: the body's start, after the first blank line (or the end when there is none). */
function headerEnd(raw: Buffer, start: number, end: number): number {
  if (raw[start] === 10) return start + 1;
  if (raw[start] === 13 && raw[start + 1] === 10) return start + 2;
  for (let i = raw.indexOf(10, start); i !== -1 && i < end; i = raw.indexOf(10, i + 1)) {
    if (raw[i + 1] === 10) return i + 2;
    if (raw[i + 1] === 13 && raw[i + 2] === 10) return i + 3;
  }
  return end;
}

/** The header fields of a header block, unfolded. */
export function parseHeaderFields(text: string): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === '') continue;
    if ((line.startsWith(' ') || line.startsWith('\t')) && fields.length > 0) {
      const last = fields[fields.length - 1]!;
      last[1] += line;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return fields;
}

/** Splits a header value at `;` outside quotes. */
function splitParams(value: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && quoted) {
      current += c + (value[i + 1] ?? '');
      i++;
    } else if (c === '"') {
      quoted = !quoted;
      current += c;
    } else if (c === ';' && !quoted) {
      out.push(current.trim());
      current = '';
    } else current += c;
  }
  out.push(current.trim());
  return out;
}

/** A header value with parameters (`text/plain; charset="utf-8"`): the value lower-cased, and its parameters. */
export function parseParameterized(value: string): { value: string; params: Array<[string, string]> } {
  const [first = '', ...rest] = splitParams(value);
  const params: Array<[string, string]> = [];
  for (const item of rest) {
    const eq = item.indexOf('=');
    if (eq <= 0) continue;
    let v = item.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1).replace(/\\(.)/g, '$1');
    params.push([item.slice(0, eq).trim().toLowerCase(), v]);
  }
  return { value: first.toLowerCase(), params };
}

/** The value of the first header field of this name, or null. */
export function headerOf(part: MimePart, name: string): string | null {
  const found = part.headers.find(([key]) => key === name);
  return found ? found[1] : null;
}

/** Start offsets of the boundary lines of a multipart body, and where its closing delimiter starts. */
function boundaries(raw: Buffer, start: number, end: number, boundary: string): { lines: Array<{ at: number; after: number }>; close: number | null } {
  const marker = Buffer.from(`--${boundary}`, 'latin1');
  const lines: Array<{ at: number; after: number }> = [];
  for (let at = raw.indexOf(marker, start); at !== -1 && at < end; at = raw.indexOf(marker, at + marker.length)) {
    if (at !== start && raw[at - 1] !== 10) continue;
    const tail = at + marker.length;
    const lf = raw.indexOf(10, tail);
    const after = lf === -1 || lf >= end ? end : lf + 1;
    if (raw[tail] === 45 && raw[tail + 1] === 45) return { lines, close: at };
    lines.push({ at, after });
  }
  return { lines, close: null };
}

/** The end of a part's content before a boundary line: its CRLF belongs to the boundary. */
function beforeBoundary(raw: Buffer, at: number, floor: number): number {
  if (at - 2 >= floor && raw[at - 2] === 13 && raw[at - 1] === 10) return at - 2;
  if (at - 1 >= floor && raw[at - 1] === 10) return at - 1;
  return at;
}

function parsePart(raw: Buffer, start: number, end: number, depth: number, budget: { parts: number }, digest: boolean): MimePart {
  budget.parts++;
  const bodyStart = headerEnd(raw, start, end);
  const headers = parseHeaderFields(raw.toString('utf8', start, bodyStart));
  const contentType = headers.find(([key]) => key === 'content-type')?.[1];
  const parsed = contentType ? parseParameterized(contentType) : { value: digest ? 'message/rfc822' : 'text/plain', params: digest ? [] : [['charset', 'us-ascii'] as [string, string]] };
  const slash = parsed.value.indexOf('/');
  let type = slash > 0 ? parsed.value.slice(0, slash).trim() : 'text';
  let subtype = slash > 0 ? parsed.value.slice(slash + 1).trim() : 'plain';
  if (!type || !subtype) [type, subtype] = ['text', 'plain'];
  const part: MimePart = { headerStart: start, bodyStart, end, headers, type, subtype, params: parsed.params, children: [], message: null };
  if (depth >= MAX_DEPTH || budget.parts >= MAX_PARTS) return part;
  const boundary = parsed.params.find(([key]) => key === 'boundary')?.[1];
  if (type === 'multipart' && boundary) {
    const { lines, close } = boundaries(raw, bodyStart, end, boundary);
    for (let i = 0; i < lines.length && budget.parts < MAX_PARTS; i++) {
      const next = lines[i + 1]?.at ?? close ?? end;
      const partEnd = next === end && close === null && i === lines.length - 1 ? end : beforeBoundary(raw, next, lines[i]!.after);
      part.children.push(parsePart(raw, lines[i]!.after, Math.max(partEnd, lines[i]!.after), depth + 1, budget, subtype === 'digest'));
    }
  } else if (type === 'message' && (subtype === 'rfc822' || subtype === 'global')) {
    part.message = parsePart(raw, bodyStart, end, depth + 1, budget, false);
  }
  return part;
}

/** The MIME structure of a raw message (see the module's comment). */
export function parseMime(raw: Buffer): MimePart {
  return parsePart(raw, 0, raw.length, 0, { parts: 0 }, false);
}

/**
 * The part a section's part number names (`[2, 1]` for `BODY[2.1]`): for a
 * multipart its child, for a single part its own body as part 1, through a
 * message/rfc822 part into the message it carries. Null when there is none.
 */
export function partAt(root: MimePart, path: readonly number[]): MimePart | null {
  let current = root;
  for (const n of path) {
    const container = current.message && current !== root ? current.message : current;
    if (container.type === 'multipart') {
      const child = container.children[n - 1];
      if (!child) return null;
      current = child;
    } else if (n === 1) {
      current = container;
    } else return null;
  }
  return current;
}
