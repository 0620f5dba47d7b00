/**
 * The Acme logo as a PNG drawn in code (white "ACME" on indigo, 96×32), used as
 * the inline `cid:` image in every email header.
 */
import { crc32, deflateSync } from 'node:zlib';

const GLYPHS: Record<string, readonly string[]> = {
  A: ['.###.', '#...#', '#...#', '#####', '#...#', '#...#', '#...#'],
  C: ['.####', '#....', '#....', '#....', '#....', '#....', '.####'],
  M: ['#...#', '##.##', '#.#.#', '#.#.#', '#...#', '#...#', '#...#'],
  E: ['#####', '#....', '#....', '####.', '#....', '#....', '#####'],
};

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/**
 * Renders `text` (letters A, C, E, M) as a PNG logo.
 *
 * @param text - the letters to draw
 * @returns the PNG file's bytes
 * @example const logo = renderLogoPng(); // 96×32 "ACME"
 */
export function renderLogoPng(text = 'ACME'): Buffer {
  const width = 96;
  const height = 32;
  const scale = 3;
  const background = [0x4f, 0x46, 0xe5];
  const foreground = [0xff, 0xff, 0xff];
  const glyphWidth = 5 * scale;
  const gap = scale;
  const textWidth = text.length * glyphWidth + (text.length - 1) * gap;
  const left = Math.floor((width - textWidth) / 2);
  const top = Math.floor((height - 7 * scale) / 2);

  const isInk = (x: number, y: number): boolean => {
    const gy = Math.floor((y - top) / scale);
    if (gy < 0 || gy >= 7 || x < left) return false;
    const slot = Math.floor((x - left) / (glyphWidth + gap));
    const gx = Math.floor(((x - left) % (glyphWidth + gap)) / scale);
    const glyph = GLYPHS[text[slot] ?? ''];
    return gx < 5 && glyph?.[gy]?.[gx] === '#';
  };

  // Each scanline: filter byte 0 (None) followed by RGB triples.
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    for (let x = 0; x < width; x++) {
      const rgb = isInk(x, y) ? foreground : background;
      raw.set(rgb, row + 1 + x * 3);
    }
  }

  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit depth, truecolour, deflate, adaptive filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
