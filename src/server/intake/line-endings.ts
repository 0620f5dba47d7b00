/**
 * Rewrites every bare LF and lone CR of a message to CRLF.
 *
 * SMTP smuggling (CVE-2023-51764 and its family) relies on servers that
 * disagree on where DATA ends: one sees `\n.\n` or `\r.\r` as the end, the
 * next one does not. The intake's protocol parser ends DATA on `<CRLF>.<CRLF>`
 * only, so such a sequence stays inside the one message; normalising the
 * stored bytes then makes sure no bare line ending leaves the service again
 * (through /raw or forwarding) where a laxer server might split on it.
 *
 * Returns the input itself when it had no bare line ending. The common case
 * (every line ending is CRLF) is checked with the native `indexOf`, one LF
 * and one CR at a time, not byte by byte in JavaScript.
 */
export function normaliseLineEndings(input: Uint8Array): { data: Uint8Array; bareLineEndings: number } {
  const buffer = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  if (!hasBareLineEnding(buffer)) return { data: input, bareLineEndings: 0 };
  let bare = 0;
  for (let i = 0; i < input.length; i++) {
    const byte = input[i];
    if (byte === 0x0d) {
      if (input[i + 1] === 0x0a) i++;
      else bare++;
    } else if (byte === 0x0a) {
      bare++;
    }
  }
  const out = new Uint8Array(input.length + bare);
  let j = 0;
  for (let i = 0; i < input.length; i++) {
    const byte = input[i] as number;
    if (byte === 0x0d) {
      out[j++] = 0x0d;
      out[j++] = 0x0a;
      if (input[i + 1] === 0x0a) i++;
    } else if (byte === 0x0a) {
      out[j++] = 0x0d;
      out[j++] = 0x0a;
    } else {
      out[j++] = byte;
    }
  }
  return { data: out, bareLineEndings: bare };
}

/** Whether some LF lacks its CR before it, or some CR its LF after it. */
function hasBareLineEnding(buffer: Buffer): boolean {
  for (let lf = buffer.indexOf(0x0a); lf !== -1; lf = buffer.indexOf(0x0a, lf + 1)) {
    if (lf === 0 || buffer[lf - 1] !== 0x0d) return true;
  }
  for (let cr = buffer.indexOf(0x0d); cr !== -1; cr = buffer.indexOf(0x0d, cr + 1)) {
    if (buffer[cr + 1] !== 0x0a) return true;
  }
  return false;
}
