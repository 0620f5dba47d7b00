/**
 * Whether an element hides its text from a reader.
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

/** Whether an element with these attributes and inline styles hides its content. */
export function isHidden(attrs: Record<string, string>, css: Record<string, string>): boolean {
  if ('hidden' in attrs) return true;
  if (css['display'] === 'none' || css['visibility'] === 'hidden' || css['opacity'] === '0') return true;
  if (css['font-size'] !== undefined && /^(?:0|1)(?:px|pt)?$/.test(css['font-size'])) return true;
  if (css['max-height'] !== undefined && /^0(?:px)?$/.test(css['max-height']) && (css['overflow'] ?? '').includes('hidden')) return true;
  return false;
}

