/**
 * Whether text is visible to a reader, judged where the text is: one rule for
 * codes and links alike.
 *
 * An element can hide everything inside it for good (`display:none`,
 * `visibility:hidden`, `opacity:0`, `max-height:0` or `height:0` with
 * `overflow:hidden`, `mso-hide:all`, the `hidden` attribute), or only shrink
 * the text to nothing (`font-size:0`, or 1px as preheaders use). Email
 * frameworks (MJML, Foundation for Emails and the templates that copy them)
 * zero the font size of wrapper cells to remove whitespace gaps and set it
 * again on an inner element where the text really is: such text is visible.
 * A size relative to the parent (`em`, `%`) of a zero size stays zero.
 */

/** The declarations of a `style` attribute, names and values lower-cased, `!important` dropped. */
export function parseCss(style: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const decl of style.split(';')) {
    const i = decl.indexOf(':');
    if (i > 0) out[decl.slice(0, i).trim().toLowerCase()] = decl.slice(i + 1).trim().toLowerCase().replace(/\s*!important$/, '');
  }
  return out;
}

/** How visible an element's content is: hidden for good (with the reason), or shrunk to nothing. */
export interface Visibility {
  /** Why everything inside is hidden (`'display:none'` …), or `null`. */
  hidden: string | null;
  /** Text here has no size unless an element inside sets one again. */
  tiny: boolean;
}

/** Visible, normal-sized text. */
export const VISIBLE: Visibility = { hidden: null, tiny: false };

const ZERO = /^0(?:\.0+)?(?:px|pt|em|rem|%)?$/;

/** Why an element with these attributes and inline styles hides all its content, or `null`. */
export function hiddenBy(attrs: Record<string, string>, css: Record<string, string>): string | null {
  if ('hidden' in attrs) return 'the hidden attribute';
  if (css['display'] === 'none') return 'display:none';
  if (css['visibility'] === 'hidden') return 'visibility:hidden';
  if (css['opacity'] !== undefined && ZERO.test(css['opacity'])) return 'opacity:0';
  if (css['mso-hide'] === 'all') return 'mso-hide:all';
  const clipped = (css['overflow'] ?? '').includes('hidden');
  if (clipped && css['max-height'] !== undefined && ZERO.test(css['max-height'])) return 'max-height:0 with overflow:hidden';
  if (clipped && css['height'] !== undefined && ZERO.test(css['height'])) return 'height:0 with overflow:hidden';
  return null;
}

/** The font size an element declares (`font-size` or the `font` shorthand), or `undefined`. */
function declaredSize(css: Record<string, string>): string | undefined {
  if (css['font-size'] !== undefined) return css['font-size'];
  const font = css['font'];
  return font ? /(?:^|\s)(\d+(?:\.\d+)?(?:px|pt|em|rem|%)?)(?:\/|\s)/.exec(`${font} `)?.[1] : undefined;
}

/** Whether a declared size makes text tiny (`true`), sets a readable size (`false`), or depends on the parent (`null`). */
function tinySize(size: string): boolean | null {
  const m = /^(\d+(?:\.\d+)?)(px|pt|em|rem|%)?$/.exec(size);
  if (!m) return /^(?:xx-small|x-small|small|medium|large|x-large|xx-large|xxx-large|smaller|larger)$/.test(size) ? false : null;
  const n = Number(m[1]);
  if (m[2] === 'em' || m[2] === '%') return n === 0 ? true : null;
  if (m[2] === 'rem') return n === 0;
  return n <= 1;
}

/** The visibility inside an element, given the visibility around it. */
export function visibilityOf(parent: Visibility, attrs: Record<string, string>, css: Record<string, string>): Visibility {
  if (parent.hidden) return parent;
  const hidden = hiddenBy(attrs, css);
  if (hidden) return { hidden, tiny: parent.tiny };
  const size = declaredSize(css);
  const tiny = size === undefined ? null : tinySize(size);
  return tiny === null || tiny === parent.tiny ? parent : { hidden: null, tiny };
}

/** Why text with this visibility cannot be seen, or `null` when it can. */
export function hiddenReason(v: Visibility): string | null {
  return v.hidden ?? (v.tiny ? 'font-size:0 with no size set again inside' : null);
}
