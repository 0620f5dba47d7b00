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

/** Largest screenshot decoded, in pixels: a bound on the work and memory one call can cause. */
export const MAX_QR_PIXELS = 16_000_000;
const MAX_PIXELS = MAX_QR_PIXELS;

/** The eight bytes every PNG starts with. */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The picture's size as its PNG header (the IHDR chunk, which must come first)
 * declares it, or null when the bytes do not start as a PNG does. Read before
 * any pixel is decoded: decoding allocates 4 bytes per declared pixel.
 */
export function pngSize(png: Uint8Array): { width: number; height: number } | null {
  if (png.length < 24 || !PNG_SIGNATURE.equals(png.subarray(0, 8))) return null;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  if (Buffer.from(png.subarray(12, 16)).toString('latin1') !== 'IHDR') return null;
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/**
 * Refuses a picture whose declared size is over {@link MAX_QR_PIXELS}, before
 * it is decoded, with an error naming the bound and what to do.
 */
function checkPictureSize(png: Uint8Array, what: string): void {
  const size = pngSize(png);
  if (size === null) {
    throw new AuthenticatorError(`authenticator: ${what} is not a PNG picture (its first bytes are not a PNG signature and header), so no QR code can be read from it.`);
  }
  if (size.width * size.height > MAX_PIXELS) {
    const megapixels = Math.round((size.width * size.height) / 100_000) / 10;
    throw new AuthenticatorError(
      `authenticator: ${what} is ${size.width}×${size.height} px (${megapixels} MP), over the ${MAX_PIXELS / 1_000_000} MP bound of the QR reader ` +
        '(decoding takes 4 bytes a pixel, so a larger picture is refused before it is read). Point the locator at the QR code itself, not at the whole page.',
    );
  }
}

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
 *
 * @param what - Names the picture in errors, e.g. `the screenshot of getByRole('img')`.
 * @throws AuthenticatorError when the PNG's header declares more than {@link MAX_QR_PIXELS}
 *   pixels (checked before any pixel is decoded), or the bytes are not a PNG.
 */
export async function decodeQrPng(png: Buffer, what = 'the picture'): Promise<string | null> {
  checkPictureSize(png, what);
  const { readPng, jsQR } = await loadDecoders();
  const image = readPng(png);
  // The header is the decoder's own source of the size; checked again in case it read another.
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
