/**
 * The "Renders" tab: the email side by side in light mode, in dark mode (its
 * own `prefers-color-scheme: dark` styles applied) and in the forced-dark
 * approximation (colours inverted, images kept, as clients without dark styles
 * support show it), at a width preset. The same renders `toHaveScreenshot`
 * makes in tests (`docs/visual-and-accessibility.md`); on demand, client
 * profiles side by side and axe-core's accessibility findings.
 *
 * @packageDocumentation
 */
import { accessibilitySection } from './accessibility-view.ts';
import { clientProfilesSection } from './client-profiles.ts';
import { h } from './dom.ts';

/**
 * The HTML with its remote image sources set aside (`src` and `background` that
 * are not `data:`), so that nothing is even asked for before the frame's policy
 * applies; the policy stays the guard for what this does not see (CSS `url()`).
 */
export function withoutRemoteImages(html: string): string {
  const doc = new DOMParser().parseFromString(`<!doctype html><body>${html}`, 'text/html');
  for (const element of doc.body.querySelectorAll('[src], [background]')) {
    for (const name of ['src', 'background']) {
      const value = element.getAttribute(name);
      if (value !== null && !/^\s*data:/i.test(value)) element.removeAttribute(name);
    }
  }
  return doc.body.innerHTML;
}

/** How a render shows colour schemes. */
export type SchemeView = 'light' | 'dark' | 'forced';

/** The width presets, in CSS pixels: `toHaveScreenshot`'s `'mobile'`, a common template width, and its `'desktop'` maximum. */
export const WIDTH_PRESETS = [375, 600, 800] as const;

const FORCED_DARK =
  '<style>html{filter:invert(1) hue-rotate(180deg)!important;background:#fff!important}' +
  'img,picture,video,[background],[style*="url("]{filter:invert(1) hue-rotate(180deg)!important}</style>';

/**
 * The HTML as a colour scheme shows it: for `dark`, the email's
 * `prefers-color-scheme: dark` media queries made to match (and its `light`
 * ones not), since the frame cannot be told the scheme on its own; for
 * `forced`, the inversion appended.
 */
export function htmlForScheme(html: string, scheme: SchemeView): string {
  if (scheme === 'light') return html;
  if (scheme === 'forced') return html + FORCED_DARK;
  const doc = new DOMParser().parseFromString(`<!doctype html><body>${html}`, 'text/html');
  for (const style of doc.querySelectorAll('style')) {
    style.textContent = (style.textContent ?? '')
      .replace(/\(\s*prefers-color-scheme\s*:\s*dark\s*\)/gi, '(min-width: 0px)')
      .replace(/\(\s*prefers-color-scheme\s*:\s*light\s*\)/gi, '(max-width: 0px)');
  }
  return doc.body.innerHTML;
}

const LABELS: Record<SchemeView, string> = {
  light: 'Light',
  dark: 'Dark (the email\'s prefers-color-scheme styles)',
  forced: 'Forced dark (inverted; an approximation)',
};

/** View preferences of the tab that last while the viewer is open. */
const prefs = { width: 375 as (typeof WIDTH_PRESETS)[number] };

/**
 * The tab's content for `html` (the sanitized HTML), with `show` putting a
 * document into a frame under the viewer's policy (no script, no request).
 */
export function rendersPanel(html: string | null, show: (frame: HTMLIFrameElement, html: string) => void): Node {
  if (html === null) return h('p', { class: 'muted' }, 'This message has no HTML body; see its text.');
  const frames = (['light', 'dark', 'forced'] as const).map((scheme) => {
    const frame = h('iframe', {
      title: `Message body, ${LABELS[scheme]}`,
      sandbox: 'allow-popups allow-popups-to-escape-sandbox',
      referrerpolicy: 'no-referrer',
      class: 'render-frame',
    });
    show(frame, htmlForScheme(html, scheme));
    return { scheme, frame };
  });
  const setWidth = (width: (typeof WIDTH_PRESETS)[number]) => {
    prefs.width = width;
    for (const frame of root.querySelectorAll<HTMLIFrameElement>('iframe.render-frame')) frame.style.width = `${width}px`;
    for (const b of group.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.width === String(width)));
  };
  const group = h('div', { role: 'group', 'aria-label': 'Render width' });
  for (const width of WIDTH_PRESETS) {
    const button = h('button', { type: 'button', 'data-width': String(width), 'aria-pressed': String(prefs.width === width) }, `${width} px`);
    button.addEventListener('click', () => setWidth(width));
    group.append(button);
  }
  // Client profiles, shown later, take the width chosen then, and follow the presets after.
  const showSized = (frame: HTMLIFrameElement, profiled: string) => {
    frame.style.width = `${prefs.width}px`;
    show(frame, profiled);
  };
  const root = h(
    'div',
    {},
    h('div', { class: 'toolbar' }, group),
    h('p', { class: 'muted' }, 'Remote images are not loaded. In tests, the same renders come from expect(message).toHaveScreenshot({ client }) and expect(message).toBeAccessible().'),
    h('div', { class: 'renders' }, ...frames.map(({ scheme, frame }) => h('figure', { class: 'render' }, h('figcaption', {}, LABELS[scheme]), frame))),
    clientProfilesSection(html, showSized),
    accessibilitySection(withoutRemoteImages(html), withoutRemoteImages(htmlForScheme(html, 'dark'))),
  );
  setWidth(prefs.width);
  return root;
}
