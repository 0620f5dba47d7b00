/**
 * The bound on DKIM verification: each `DKIM-Signature` makes the verifier
 * hash the body again (with its own `l=` and canonicalization), so a message
 * with thousands of signatures could cost minutes of CPU. Only the first
 * signatures (in header order, as a receiver checks them) are verified; the
 * rest are reported as not checked, naming the bound.
 *
 * @packageDocumentation
 */

/** DKIM signatures verified per message, at most. */
export const MAX_DKIM_SIGNATURES = 10;

/** Body bytes hashed for DKIM per message, at most (signatures × body size). */
export const MAX_DKIM_HASHED_BYTES = 64 * 1024 * 1024;

/** A signature left out by the bound. */
export interface SkippedSignature {
  /** Its `d=`. */
  domain: string;
  /** Its `s=`. */
  selector: string;
}

/** The raw message with the signatures over the bound removed, and those signatures. */
export interface BoundedDkim {
  raw: Uint8Array;
  skipped: SkippedSignature[];
  /** How many signatures are verified. */
  kept: number;
}

/** Where the header block ends (the index of the blank line's first byte), or the message's length. */
function headerEnd(raw: Uint8Array): number {
  for (let i = 0; i + 1 < raw.length; i++) {
    if (raw[i] === 0x0a && (raw[i + 1] === 0x0a || (raw[i + 1] === 0x0d && raw[i + 2] === 0x0a))) return i + 1;
  }
  return raw.length;
}

function tag(value: string, name: string): string {
  return new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*([^;]*)`, 'i').exec(value)?.[1]?.replace(/\s+/g, '') ?? '';
}

/**
 * Keeps the first signatures of `raw` within {@link MAX_DKIM_SIGNATURES} and
 * {@link MAX_DKIM_HASHED_BYTES} (at least one), one linear pass over the
 * header block. A message within the bound is returned as it is.
 */
export function boundDkimSignatures(raw: Uint8Array, maxSignatures = MAX_DKIM_SIGNATURES, maxHashedBytes = MAX_DKIM_HASHED_BYTES): BoundedDkim {
  const end = headerEnd(raw);
  const header = Buffer.from(raw.buffer, raw.byteOffset, end).toString('latin1');
  const body = Math.max(1, raw.length - end);
  const allowed = Math.max(1, Math.min(maxSignatures, Math.floor(maxHashedBytes / body)));
  // Fields: a line that does not start with white space begins one.
  const fields: string[] = [];
  for (const line of header.split(/(?<=\n)/)) {
    if (fields.length > 0 && (line.startsWith(' ') || line.startsWith('\t'))) fields[fields.length - 1] += line;
    else fields.push(line);
  }
  let seen = 0;
  const skipped: SkippedSignature[] = [];
  const kept: string[] = [];
  for (const field of fields) {
    if (/^dkim-signature\s*:/i.test(field)) {
      seen++;
      if (seen > allowed) {
        const value = field.slice(field.indexOf(':') + 1);
        skipped.push({ domain: tag(value, 'd'), selector: tag(value, 's') });
        continue;
      }
    }
    kept.push(field);
  }
  if (skipped.length === 0) return { raw, skipped, kept: seen };
  const head = Buffer.from(kept.join(''), 'latin1');
  const out = new Uint8Array(head.length + raw.length - end);
  out.set(head, 0);
  out.set(raw.subarray(end), head.length);
  return { raw: out, skipped, kept: allowed };
}

/** The reason a left-out signature gives. */
export function skippedReason(kept: number, total: number): string {
  return `not checked: only the first ${kept} of ${total} DKIM signatures are verified (at most ${MAX_DKIM_SIGNATURES} per message, and ${MAX_DKIM_HASHED_BYTES / 1024 / 1024} MiB of body hashed in all); a receiver checks the top ones too, so put the signature that matters first`;
}
