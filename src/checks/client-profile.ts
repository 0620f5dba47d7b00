/**
 * Client profiles: an email's HTML as a client would render it, approximately,
 * after removing what the caniemail data says the client does not support
 * (the latest tested version's "no"): `<style>` and `<link>` elements, at-rules
 * (`@media`, `@font-face`, `@import` …), unsupported CSS properties, values and
 * functions, pseudo-classes, the `background` attribute, embedded SVG and image
 * formats. Partial support is kept. It cannot reproduce a client's own
 * stylesheet, rewriting or quirks beyond what the data records.
 *
 * @packageDocumentation
 */
import * as cheerio from 'cheerio';
import type * as CssTree from 'css-tree';
import { clientFeatureSupport } from './compatibility.ts';
import type { CaniemailLibrary, ClientFeatureSupport } from './compatibility.ts';

/** One kind of thing a client profile removed from an email. */
export interface ProfileRemoval {
  /** caniemail's id of the unsupported feature, e.g. `html-style`. */
  slug: string;
  /** caniemail's title, e.g. `<style> element`. */
  feature: string;
  /** The feature's page on caniemail.com. */
  url: string;
  /** What was removed, e.g. `<style> element`, `position declaration`, `@media rule`. */
  removed: string;
  /** How many times. */
  count: number;
}

/** What {@link applyClientProfile} returns. */
export interface ClientProfileResult {
  /** `family.platform`, e.g. `gmail.desktop-webmail`. */
  client: string;
  /** Readable name, e.g. `Gmail Desktop Webmail`. */
  name: string;
  /** The HTML with the unsupported parts removed. */
  html: string;
  /** What was removed, by feature. */
  removed: ProfileRemoval[];
  /**
   * How this client shows dark mode: `media` when the data says it supports
   * `@media (prefers-color-scheme)` (fully or in part), `forced` otherwise (an
   * approximation: the colours are inverted, images kept).
   */
  darkMode: 'media' | 'forced';
  /** When the caniemail data was last updated. */
  dataUpdated: string;
}

/** The sentence every profile's report carries. */
export const CLIENT_PROFILE_NOTE =
  'A client profile is an approximation from the caniemail data: it removes what the client is documented not to support, and cannot reproduce the client\'s own stylesheet, rewriting or quirks.';

type Unsupported = (slug: string) => ClientFeatureSupport | undefined;
/** css-tree, imported on first use (it takes a few hundred milliseconds to load, and most runs never apply a profile). */
type Css = typeof CssTree;

interface CssRules {
  properties: Map<string, ClientFeatureSupport>;
  values: Array<{ property: string; value: string; feature: ClientFeatureSupport }>;
  functions: Map<string, ClientFeatureSupport>;
  pseudos: Array<{ pseudo: string; feature: ClientFeatureSupport }>;
  atRules: Map<string, ClientFeatureSupport>;
}

/** The CSS-level rules of the unsupported features, read from their titles (`position`, `display:flex`, `linear-gradient()`, `:hover`, `@media`). */
function cssRules(unsupported: ClientFeatureSupport[]): CssRules {
  const rules: CssRules = { properties: new Map(), values: [], functions: new Map(), pseudos: [], atRules: new Map() };
  for (const f of unsupported) {
    if (f.category !== 'css') continue;
    const title = f.feature.replace(/ property$/, '').trim();
    const value = /^([a-z-]+):\s*([a-z-]+)$/.exec(title);
    const parts = title.split(/\s*(?:,|&)\s*/);
    if (value) rules.values.push({ property: value[1] as string, value: value[2] as string, feature: f });
    else if (/^@[a-z-]+$/.test(title)) rules.atRules.set(title.slice(1), f);
    else if (/^::?[a-z-]+(\(\))?$/.test(title)) rules.pseudos.push({ pseudo: title.replace(/\(\)$/, ''), feature: f });
    else if (parts.every((p) => /^[a-z-]+\(\)$/.test(p))) for (const p of parts) rules.functions.set(p.slice(0, -2), f);
    else if (parts.every((p) => /^[a-z-]+$/.test(p))) for (const p of parts) rules.properties.set(p, f);
  }
  return rules;
}

class Removals {
  readonly #byKey = new Map<string, ProfileRemoval>();
  add(feature: ClientFeatureSupport, removed: string, count = 1): void {
    if (count === 0) return;
    const key = `${feature.slug}\u0000${removed}`;
    const entry = this.#byKey.get(key) ?? { slug: feature.slug, feature: feature.feature, url: feature.url, removed, count: 0 };
    entry.count += count;
    this.#byKey.set(key, entry);
  }
  list(): ProfileRemoval[] {
    return [...this.#byKey.values()];
  }
}

/** Whether a declaration goes, and which feature says so. */
function declarationFeature(csstree: Css, node: CssTree.Declaration, rules: CssRules): ClientFeatureSupport | undefined {
  const property = node.property.toLowerCase();
  const byProperty = rules.properties.get(property);
  if (byProperty) return byProperty;
  const value = csstree.generate(node.value).toLowerCase().trim();
  const byValue = rules.values.find((v) => v.property === property && value.split(/\s+/)[0] === v.value);
  if (byValue) return byValue.feature;
  for (const [name, feature] of rules.functions) if (value.includes(`${name}(`)) return feature;
  if (rules.properties.has('background-image') && /^background$/.test(property) && value.includes('url(')) return rules.properties.get('background-image');
  return undefined;
}

function filterDeclarations(csstree: Css, ast: CssTree.CssNode, rules: CssRules, removals: Removals): void {
  csstree.walk(ast, {
    visit: 'Declaration',
    enter(node, item, list) {
      const feature = declarationFeature(csstree, node, rules);
      if (feature && list) {
        list.remove(item);
        removals.add(feature, `${node.property} declaration`);
      }
    },
  });
}

function filterStylesheet(csstree: Css, css: string, rules: CssRules, removals: Removals): string {
  const ast = csstree.parse(css, { parseValue: true, parseCustomProperty: false });
  csstree.walk(ast, {
    visit: 'Atrule',
    enter(node, item, list) {
      const name = node.name.toLowerCase();
      const prelude = node.prelude ? csstree.generate(node.prelude).toLowerCase() : '';
      const feature = rules.atRules.get(name) ?? (name === 'media' && prelude.includes('prefers-color-scheme') ? rules.atRules.get('media (prefers-color-scheme)') : undefined);
      if (feature && list) {
        list.remove(item);
        removals.add(feature, `@${name} rule`);
      }
    },
  });
  csstree.walk(ast, {
    visit: 'Rule',
    enter(node, item, list) {
      if (node.prelude.type !== 'SelectorList' || !list) return;
      const selectors = node.prelude.children;
      selectors.forEach((selector, selectorItem) => {
        const text = csstree.generate(selector).toLowerCase();
        const hit = rules.pseudos.find((p) => new RegExp(`${p.pseudo.replace(/[(]/g, '\\(')}(?![a-z-])`).test(text));
        if (hit) {
          selectors.remove(selectorItem);
          removals.add(hit.feature, `${hit.pseudo} selector`);
        }
      });
      if (selectors.isEmpty) list.remove(item);
    },
  });
  filterDeclarations(csstree, ast, rules, removals);
  return csstree.generate(ast);
}

/** `@media (prefers-color-scheme)`'s title in the data, as {@link cssRules} keys at-rules. */
function prefersColorSchemeRule(unsupported: Unsupported, rules: CssRules): void {
  const feature = unsupported('css-at-media-prefers-color-scheme');
  if (feature) rules.atRules.set('media (prefers-color-scheme)', feature);
}

function removeElements($: cheerio.CheerioAPI, selector: string, feature: ClientFeatureSupport | undefined, what: string, removals: Removals): void {
  if (!feature) return;
  const found = $(selector);
  removals.add(feature, what, found.length);
  found.remove();
}

const IMAGE_FORMATS: Record<string, RegExp> = {
  'image-svg': /(\.svg(\?|#|$)|^data:image\/svg)/i,
  'image-webp': /(\.webp(\?|#|$)|^data:image\/webp)/i,
  'image-avif': /(\.avif(\?|#|$)|^data:image\/avif)/i,
  'image-bmp': /(\.bmp(\?|#|$)|^data:image\/bmp)/i,
  'image-tiff': /(\.tiff?(\?|#|$)|^data:image\/tiff)/i,
  'image-ico': /(\.ico(\?|#|$)|^data:image\/(x-icon|vnd\.microsoft\.icon))/i,
  'image-heif': /(\.hei[fc](\?|#|$)|^data:image\/hei[fc])/i,
};

function removeHtmlFeatures($: cheerio.CheerioAPI, unsupported: Unsupported, removals: Removals): void {
  removeElements($, 'style', unsupported('html-style'), '<style> element', removals);
  removeElements($, 'link', unsupported('html-link'), '<link> element', removals);
  removeElements($, 'svg', unsupported('html-svg'), '<svg> element', removals);
  const background = unsupported('html-background');
  if (background) {
    const found = $('[background]');
    removals.add(background, 'background attribute', found.length);
    found.removeAttr('background');
  }
  for (const [slug, pattern] of Object.entries(IMAGE_FORMATS)) {
    const feature = unsupported(slug);
    if (!feature) continue;
    const found = $('img').filter((_, el) => pattern.test($(el).attr('src') ?? ''));
    removals.add(feature, `<img> in ${feature.feature.replace(/ image format$/i, '')}`, found.length);
    found.remove();
  }
}

/**
 * Renders `html` as `client` would, approximately: removes what the caniemail
 * data says the client's latest tested version does not support, and lists it.
 *
 * @param client - one `family.platform`, e.g. `gmail.desktop-webmail`, `outlook.windows`.
 * @throws InboxkitError for an unknown client, naming the known ones.
 * @example
 * ```ts
 * const { html: asGmail, removed } = await applyClientProfile(html, 'gmail.desktop-webmail');
 * ```
 */
export async function applyClientProfile(html: string, client: string): Promise<ClientProfileResult> {
  return profileWith(undefined, html, client);
}

/**
 * {@link applyClientProfile} over a given copy of the caniemail package (the
 * web viewer's browser bundle), or the bundle in `vendor/` when undefined.
 */
export async function profileWith(library: CaniemailLibrary | undefined, html: string, client: string): Promise<ClientProfileResult> {
  const support = await clientFeatureSupport(client, library);
  const unsupportedList = support.features.filter((f) => f.support === 'no');
  const bySlug = new Map(unsupportedList.map((f) => [f.slug, f]));
  const unsupported: Unsupported = (slug) => bySlug.get(slug);
  const rules = cssRules(unsupportedList);
  prefersColorSchemeRule(unsupported, rules);
  const removals = new Removals();
  const csstree: Css = await import('css-tree');
  const $ = cheerio.load(html);
  removeHtmlFeatures($, unsupported, removals);
  $('style').each((_, el) => {
    const text = $(el).text();
    $(el).text(filterStylesheet(csstree, text, rules, removals));
  });
  $('[style]').each((_, el) => {
    const ast = csstree.parse($(el).attr('style') ?? '', { context: 'declarationList', parseValue: true, parseCustomProperty: false });
    filterDeclarations(csstree, ast, rules, removals);
    const style = csstree.generate(ast);
    if (style === '') $(el).removeAttr('style');
    else $(el).attr('style', style);
  });
  const colorScheme = support.features.find((f) => f.slug === 'css-at-media-prefers-color-scheme')?.support;
  const styleKept = !bySlug.has('html-style');
  return {
    client: support.client,
    name: support.name,
    html: $.html(),
    removed: removals.list(),
    darkMode: styleKept && (colorScheme === 'yes' || colorScheme === 'partial') ? 'media' : 'forced',
    dataUpdated: support.dataUpdated,
  };
}
