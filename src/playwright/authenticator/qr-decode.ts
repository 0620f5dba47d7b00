/**
 * Reads a QR code out of a PNG screenshot: `pngjs` decodes the PNG, `jsqr`
 * finds and decodes the code. Both are optional peer dependencies, loaded on
 * first use, so importing `inboxkit/playwright` costs nothing until a test
 * enrols from a QR code, and a project that never does need not install them.
 *
 * @packageDocumentation
 */
import type * as PngJs from 'pngjs';
import type * as JsQrModule from 'jsqr';
import { AuthenticatorError } from './otp-params.ts';

/** The command that installs the QR decoders (named by the error when they are missing). */
export const QR_DECODERS_INSTALL = 'npm install --save-dev jsqr pngjs';

/** An RGBA bitmap. */
interface Bitmap {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

type JsQr = (data: Uint8ClampedArray, width: number, height: number, options?: { inversionAttempts?: 'dontInvert' | 'onlyInvert' | 'attemptBoth' | 'invertFirst' }) => { data: string } | null;

/** Largest screenshot decoded, in pixels: a bound on the work one call can cause. */
const MAX_PIXELS = 16_000_000;

/** A white border around the image: a QR code drawn edge to edge (no quiet zone) is found only with one. */
function padded(image: Bitmap, border: number): Bitmap {
  const width = image.width + 2 * border;
  const height = image.height + 2 * border;
  const data = new Uint8ClampedArray(width * height * 4).fill(255);
  for (let y = 0; y < image.height; y++) {
    data.set(image.data.subarray(y * image.width * 4, (y + 1) * image.width * 4), ((y + border) * width + border) * 4);
  }
  return { data, width, height };
}

/** The image twice as large (each pixel a 2×2 block): small codes, with modules of a pixel or two, are found only so. */
function doubled(image: Bitmap): Bitmap {
  const width = image.width * 2;
  const height = image.height * 2;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const from = ((y >> 1) * image.width + (x >> 1)) * 4;
      data.set(image.data.subarray(from, from + 4), (y * width + x) * 4);
    }
  }
  return { data, width, height };
}

/** How the decoders are imported: `import()` itself, or (in tests) one that fails as a missing package does. */
export type ModuleImporter = (name: 'pngjs' | 'jsqr') => Promise<unknown>;

/** pngjs and jsqr, or an error that names the one install command. */
export async function importQrDecoders(importModule: ModuleImporter = (name) => import(name)): Promise<[typeof PngJs, typeof JsQrModule]> {
  try {
    const [pngjs, jsqr] = await Promise.all([importModule('pngjs'), importModule('jsqr')]);
    return [pngjs as typeof PngJs, jsqr as typeof JsQrModule];
  } catch (error) {
    throw new AuthenticatorError(
      `enroll: reading a QR code needs jsqr and pngjs, optional peer dependencies of inboxkit (about 1 MB); install them with \`${QR_DECODERS_INSTALL}\`, or enrol from the secret or the otpauth:// URI the page shows.`,
      { cause: error },
    );
  }
}

async function loadDecoders(): Promise<{ readPng: (png: Buffer) => Bitmap; jsQR: JsQr }> {
  const [pngjs, jsqr] = await importQrDecoders();
  // jsqr is CommonJS: its function is the default export (or that export's own `default`, depending on the loader).
  const exported = jsqr.default as unknown as JsQr | { default: JsQr };
  const jsQR = typeof exported === 'function' ? exported : exported.default;
  const readPng = (png: Buffer): Bitmap => {
    const image = pngjs.PNG.sync.read(png);
    return { data: new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length), width: image.width, height: image.height };
  };
  return { readPng, jsQR };
}

/**
 * The text of the QR code in a PNG image, or `null` when none is found. The
 * image is tried as it is, with a white border, and at twice the size.
 */
export async function decodeQrPng(png: Buffer): Promise<string | null> {
  const { readPng, jsQR } = await loadDecoders();
  const image = readPng(png);
  if (image.width * image.height > MAX_PIXELS) return null;
  const withBorder = padded(image, Math.max(8, Math.round(Math.min(image.width, image.height) / 10)));
  const attempts = [() => image, () => withBorder, () => doubled(withBorder)];
  for (const attempt of attempts) {
    const bitmap = attempt();
    if (bitmap.width * bitmap.height > MAX_PIXELS) break;
    const found = jsQR(bitmap.data, bitmap.width, bitmap.height, { inversionAttempts: 'attemptBoth' });
    if (found !== null) return found.data;
  }
  return null;
}
