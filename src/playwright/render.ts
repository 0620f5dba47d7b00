/**
 * Rendering an email for snapshots and accessibility audits: in a page of its
 * own (a fresh browser context, closed afterwards), at a chosen width and
 * colour scheme, optionally as a client profile, with nothing reaching the
 * network unless images are `'loaded'`.
 *
 * @packageDocumentation
 */
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { CLIENT_PROFILE_NOTE, InboxkitError, applyClientProfile } from '../client/index.ts';
import { prepareRenderHtml, renderSource } from '../checks/render-source.ts';
import type { DynamicPart, ImageMode, ProfileRemoval } from '../client/index.ts';
import type { RenderSource } from '../checks/render-source.ts';

/** A width: pixels (200–2000), `'mobile'` (375) or `'desktop'` (the email's natural width, at most 800). */
export type RenderWidth = number | 'mobile' | 'desktop';

/** How an email is rendered. */
export interface RenderOptions {
  /**
   * The viewport width.
   * @defaultValue 'desktop'
   */
  width?: RenderWidth;
  /**
   * `'dark'` emulates `prefers-color-scheme: dark`; with a `client` whose data
   * says it ignores that media query, an approximation of forced dark mode
   * (colours inverted, images kept).
   * @defaultValue 'light'
   */
  colorScheme?: 'light' | 'dark';
  /**
   * Remote images: `'placeholder'` (a grey box of the declared size, no request),
   * `'blocked'` (as a client that blocks images: alt text and a broken-image box, no request), or `'loaded'` (fetched).
   * @defaultValue 'placeholder'
   */
  images?: ImageMode;
  /** A client profile, one `family.platform` of the compatibility data, e.g. `'gmail.desktop-webmail'`. */
  client?: string;
  /**
   * Mark the one-time code, tokens in visible URLs and dates so that they can be masked.
   * @defaultValue true
   */
  maskDynamic?: boolean;
}

/** An email rendered in a page of its own; {@link RenderedEmail.close} closes its context. */
export interface RenderedEmail {
  /** The page the email is shown in (its own context; closed by {@link RenderedEmail.close}). */
  page: Page;
  /** The width used, in CSS pixels. */
  width: number;
  /** The colour scheme asked for. */
  colorScheme: 'light' | 'dark';
  /** How dark mode was shown: `media` (prefers-color-scheme), `forced` (inversion approximation), or `none` (light). */
  darkMode: 'media' | 'forced' | 'none';
  /** The dynamic parts marked (and masked by the snapshot). */
  dynamic: DynamicPart[];
  /** The client profile applied, if any. */
  profile: { client: string; name: string; removed: ProfileRemoval[]; note: string } | null;
  /** Which HTML was rendered. */
  source: 'original' | 'sanitized' | 'text';
  /** Closes the page and its context. */
  close(): Promise<void>;
}

/** What rendering needs of a message: its bodies, its raw source and its one-time codes. */
export interface RenderableMessage extends RenderSource {
  /** The subject, for reports. */
  subject: string;
  /** The one-time-code candidates (`message.otps()`), to find how the code is written. */
  otps(): ReadonlyArray<{ raw: string; code: string }>;
  /** The one-time code (`message.otp()`); throws when there is none. */
  otp(): string;
}

/** Gets the browser to render in (launched on first use). */
export type BrowserSource = () => Promise<Browser>;

const MOBILE_WIDTH = 375;
const DESKTOP_MAX = 800;
const MIN_WIDTH = 200;
const MAX_WIDTH = 2000;
const VIEWPORT_HEIGHT = 800;

/** Colours inverted, hues kept, images and backgrounds turned back: the "full inversion" some clients apply to emails without dark styles. */
const FORCED_DARK_CSS =
  'html{filter:invert(1) hue-rotate(180deg)!important;background:#fff!important}' +
  'img,picture,video,[background],[style*="url("]{filter:invert(1) hue-rotate(180deg)!important}';
/** Animations, transitions and carets off; web fonts never load (the route blocks them). */
const STILL_CSS = '*,*::before,*::after{animation:none!important;transition:none!important;caret-color:transparent!important}';

/**
 * Checks a width and returns it in pixels (`desktop` as `null`, measured later).
 *
 * @throws InboxkitError naming the allowed widths.
 */
export function resolveWidth(width: RenderWidth | undefined): number | null {
  if (width === undefined || width === 'desktop') return null;
  if (width === 'mobile') return MOBILE_WIDTH;
  if (typeof width !== 'number' || !Number.isInteger(width) || width < MIN_WIDTH || width > MAX_WIDTH) {
    throw new InboxkitError(
      `render: width must be a whole number of CSS pixels from ${MIN_WIDTH} to ${MAX_WIDTH}, 'mobile' (${MOBILE_WIDTH}) or 'desktop' (the email's natural width, at most ${DESKTOP_MAX}); got ${JSON.stringify(width)}.`,
    );
  }
  return width;
}

function checkOptions(options: RenderOptions): void {
  resolveWidth(options.width);
  if (options.colorScheme !== undefined && options.colorScheme !== 'light' && options.colorScheme !== 'dark') {
    throw new InboxkitError(`render: colorScheme must be 'light' or 'dark', got ${JSON.stringify(options.colorScheme)}.`);
  }
  if (options.client !== undefined && (typeof options.client !== 'string' || options.client.trim() === '')) {
    throw new InboxkitError(`render: client must be a client name like 'gmail.desktop-webmail', got ${JSON.stringify(options.client)}.`);
  }
}

function codesOf(message: RenderableMessage): string[] {
  try {
    const code = message.otp();
    return [...new Set(message.otps().filter((c) => c.code === code).map((c) => c.raw)), code];
  } catch {
    return [];
  }
}

async function openPage(context: BrowserContext, images: ImageMode): Promise<Page> {
  const page = await context.newPage();
  await page.route('**/*', async (route) => {
    const request = route.request();
    const url = request.url();
    if (url.startsWith('data:') || url === 'about:blank') return route.fallback();
    if (images === 'loaded' && request.resourceType() === 'image' && /^https?:/i.test(url)) return route.fallback();
    await route.abort('blockedbyclient');
  });
  return page;
}

/** The email's natural width: its content's max-content width, between the minimum and 800. */
async function naturalWidth(page: Page): Promise<number> {
  const measured = await page.evaluate(() => {
    const root = document.documentElement;
    const before = root.style.width;
    root.style.width = 'max-content';
    const width = Math.ceil(Math.max(document.body?.getBoundingClientRect().width ?? 0, root.getBoundingClientRect().width));
    root.style.width = before;
    return width;
  });
  return Math.min(DESKTOP_MAX, Math.max(MIN_WIDTH, measured));
}

/**
 * Renders `message` in a new context of `browser`: options checked first
 * (a clear error for a bad width, colour scheme or client), then the HTML
 * prepared (client profile, images, dynamic parts), then shown.
 */
export async function renderEmail(getBrowser: BrowserSource, message: RenderableMessage, options: RenderOptions = {}): Promise<RenderedEmail> {
  checkOptions(options);
  const images = options.images ?? 'placeholder';
  const colorScheme = options.colorScheme ?? 'light';
  const source = await renderSource(message);
  const profile = options.client === undefined ? null : await applyClientProfile(source.html, options.client);
  const prepared = prepareRenderHtml(profile?.html ?? source.html, { images, codes: codesOf(message), maskDynamic: options.maskDynamic ?? true });
  const darkMode = colorScheme === 'light' ? 'none' : (profile?.darkMode ?? 'media');
  const fixed = resolveWidth(options.width);
  const browser = await getBrowser();
  const context = await browser.newContext({
    viewport: { width: fixed ?? DESKTOP_MAX, height: VIEWPORT_HEIGHT },
    deviceScaleFactor: 1,
    // Forced dark: the client does not tell the email it is dark; it inverts what the email draws.
    colorScheme: darkMode === 'media' ? 'dark' : 'light',
    reducedMotion: 'reduce',
    locale: 'en-US',
    timezoneId: 'UTC',
    serviceWorkers: 'block',
  });
  try {
    const page = await openPage(context, images);
    await page.setContent(prepared.html, { waitUntil: 'load' });
    await page.addStyleTag({ content: darkMode === 'forced' ? STILL_CSS + FORCED_DARK_CSS : STILL_CSS });
    // A client shows an email that declares no colour scheme and no background on its own white
    // background; headless Chromium in dark mode would paint the canvas dark under it instead.
    await page.evaluate(() => {
      const root = getComputedStyle(document.documentElement);
      const transparent = (c: string) => c === 'rgba(0, 0, 0, 0)' || c === 'transparent';
      if (root.colorScheme === 'normal' && transparent(root.backgroundColor) && transparent(getComputedStyle(document.body).backgroundColor)) {
        document.documentElement.style.setProperty('background-color', '#ffffff');
      }
      return document.fonts.ready.then(() => undefined);
    });
    const width = fixed ?? (await naturalWidth(page));
    if (width !== (fixed ?? DESKTOP_MAX)) await page.setViewportSize({ width, height: VIEWPORT_HEIGHT });
    return {
      page,
      width,
      colorScheme,
      darkMode,
      dynamic: prepared.dynamic,
      profile: profile && { client: profile.client, name: profile.name, removed: profile.removed, note: CLIENT_PROFILE_NOTE },
      source: source.source,
      close: () => context.close(),
    };
  } catch (error) {
    await context.close().catch(() => {});
    throw error;
  }
}

/** A render's facts as report lines: width, scheme, profile and what it removed, the masked parts. */
export function describeRender(render: RenderedEmail): string[] {
  const lines = [`width ${render.width}px, ${render.colorScheme}${render.darkMode === 'forced' ? ' (forced-dark approximation: colours inverted, images kept)' : ''}, ${render.source} HTML`];
  if (render.profile) {
    lines.push(`client profile ${render.profile.name} (${render.profile.client}): ${render.profile.note}`);
    lines.push(
      render.profile.removed.length === 0
        ? '  removed nothing'
        : render.profile.removed.map((r) => `  removed ${r.removed} ×${r.count} (${r.feature} — ${r.url})`).join('\n'),
    );
  }
  lines.push(render.dynamic.length === 0 ? 'masked dynamic parts: none' : `masked dynamic parts: ${render.dynamic.map((d) => `${d.kind} ${JSON.stringify(d.text)}`).join(', ')}`);
  return lines;
}
