/**
 * Email client compatibility: which HTML and CSS features of an email the
 * named clients do not support, from the caniemail.com data set, with a score
 * per client computed the way Mailpit's HTML check computes its total.
 *
 * Detection and the data come from the `caniemail` package, bundled at build
 * time with its data set into `vendor/caniemail.js` (scripts/build-vendor.ts;
 * licences in `vendor/caniemail.LICENSES.txt`), so nothing is fetched and
 * none of the package's declared dev tooling is installed. The HTML checked is the email's original
 * HTML part, read from the raw source with `postal-mime`: the sanitized `html`
 * of the API has lost exactly the features (forms, scripts, `<link>`, many
 * attributes) that clients refuse.
 *
 * @packageDocumentation
 */
import * as cheerio from 'cheerio';
import { InboxkitError } from '../errors/inboxkit-error.ts';
import { originalHtml } from './original.ts';
import type { ParsedOriginal } from './original.ts';

/** One feature of the email that a client lacks or supports only in part. */
export interface FeatureUse {
  /** caniemail's title, e.g. `display:flex`, `<form> element`. */
  feature: string;
  /** caniemail's id, e.g. `css-display-flex`. */
  slug: string;
  /** `html`, `css`, `image` or `others`. */
  category: string;
  /** The feature's page on caniemail.com. */
  url: string;
  /** How many times the email uses it. */
  occurrences: number;
  /** Lines of the HTML where it is used (first few), when known. */
  lines: number[];
  /** caniemail's notes on this client's support. */
  notes: string[];
}

/**
 * A score as Mailpit's HTML check reports it: per feature the email uses, the
 * share of the client's tested versions that lack it (or support it in part),
 * weighted by how often the email uses it against its number of elements; the
 * worst feature sets each figure, and `supported` is what is left of 100.
 */
export interface CompatibilityScore {
  /** Percentage considered supported, 0–100. */
  supported: number;
  /** Percentage considered partially supported, 0–100. */
  partial: number;
  /** Percentage considered unsupported, 0–100. */
  unsupported: number;
}

/** How one client (family and platform) fares with the email. */
export interface ClientCompatibility {
  /** `family.platform`, e.g. `outlook.windows`. */
  client: string;
  /** Readable name, e.g. `Outlook Windows`. */
  name: string;
  /** Family, e.g. `outlook`. */
  family: string;
  /** Platform, e.g. `windows`. */
  platform: string;
  /** Features the client's latest tested version does not support. */
  unsupported: FeatureUse[];
  /** Features it supports only in part. */
  partial: FeatureUse[];
  /** Mailpit's score for this client. */
  score: CompatibilityScore;
}

/** What `message.compatibility()` and `checkCompatibility()` return. */
export interface CompatibilityReport {
  /** Whether none of the clients lacks a feature the email uses (partial support allowed). */
  compatible: boolean;
  /** The clients asked about, in the order asked. */
  clients: ClientCompatibility[];
  /**
   * Which HTML was checked: the original HTML part, the API's sanitized HTML
   * (when the server does not serve raw sources), or none (a text-only email).
   */
  source: 'original' | 'sanitized' | 'none';
  /** Number of HTML elements counted for the score (as Mailpit counts them). */
  elements: number;
  /** When the bundled caniemail data was last updated. */
  dataUpdated: string;
}

/** Which clients to check: names like `gmail` (all its platforms), `outlook.windows`, `apple-mail.ios`, `*.android`, `*`. */
export type EmailClientNames = string | readonly string[];

type Support = Record<string, string>;
interface Feature {
  slug: string;
  title: string;
  category: string;
  url: string;
  stats: Record<string, Record<string, Support> | undefined>;
  notes_by_num?: Record<string, string> | null;
}
interface CaniemailIssue {
  title: string;
  notes: string[];
  position?: { start: { line: number } };
}
/** The `caniemail` package as used here: the bundle in `vendor/` in Node, the web viewer's own browser bundle there. */
export interface CaniemailLibrary {
  /** Finds the features an HTML uses that the clients lack or support in part. */
  caniemail(options: { clients: string[]; html: string }): { issues: { errors: Map<string, CaniemailIssue[]>; warnings: Map<string, CaniemailIssue[]> } };
  /** The caniemail.com data set. */
  rawData: { data: Feature[]; last_update_date: string; nicenames: { family: Record<string, string>; platform: Record<string, string> } };
}

const MAX_LINES = 5;

/** The bundle, two folders up from both src/checks and dist/checks. */
const VENDOR_BUNDLE = '../../vendor/caniemail.js';

async function loadCaniemail(): Promise<CaniemailLibrary> {
  // Loaded on first use: the data set is large, and most runs never check compatibility.
  const url = new URL(VENDOR_BUNDLE, import.meta.url);
  try {
    return (await import(url.href)) as CaniemailLibrary;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new InboxkitError(`The bundled caniemail data is missing (${url.pathname}). In a checkout of inboxkit, run \`npm run build\` (it writes vendor/); in an installed package, reinstall inboxkit.`, { cause: error });
  }
}

/** Every family and its platforms, as the data set knows them. */
function knownClients(data: CaniemailLibrary['rawData']): Map<string, string[]> {
  const known = new Map<string, Set<string>>();
  for (const feature of data.data) {
    for (const [family, platforms] of Object.entries(feature.stats)) {
      const set = known.get(family) ?? new Set<string>();
      for (const platform of Object.keys(platforms ?? {})) set.add(platform);
      known.set(family, set);
    }
  }
  return new Map([...known].map(([family, set]) => [family, [...set].sort()]));
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1));
      previous = current;
    }
  }
  return row[b.length] as number;
}

function closest(word: string, candidates: Iterable<string>): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(word, candidate);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : null;
}

/**
 * The `family.platform` clients that `names` stand for, in order, without repeats.
 *
 * @throws InboxkitError naming the unknown client and the known ones.
 */
export function resolveEmailClients(names: EmailClientNames | undefined, known: Map<string, string[]>): string[] {
  const list = names === undefined ? ['*'] : typeof names === 'string' ? [names] : [...names];
  if (list.length === 0) throw new InboxkitError('compatibility: name at least one email client, e.g. ["gmail", "outlook.windows"].');
  const families = [...known.keys()];
  const help = `Clients are a family (${families.join(', ')}) or family.platform (e.g. gmail.ios, outlook.windows, apple-mail.macos), or *.platform, or *.`;
  const out = new Set<string>();
  for (const raw of list) {
    if (typeof raw !== 'string') throw new InboxkitError(`compatibility: an email client name must be a string, got ${JSON.stringify(raw)}. ${help}`);
    const name = raw.trim().toLowerCase().replace(/[\s_]+/g, '-');
    const [family = '', platform, ...rest] = name.split('.');
    const familyNames = family === '*' ? families : [family];
    if (rest.length > 0 || (family !== '*' && !known.has(family))) {
      const guess = closest(family, families);
      throw new InboxkitError(`compatibility: unknown email client ${JSON.stringify(raw)}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ''}. ${help}`);
    }
    let matched = 0;
    for (const f of familyNames) {
      for (const p of known.get(f) ?? []) {
        if (platform === undefined || platform === '*' || platform === p) {
          out.add(`${f}.${p}`);
          matched++;
        }
      }
    }
    if (matched === 0) {
      const platforms = family === '*' ? [...new Set([...known.values()].flat())].sort() : (known.get(family) ?? []);
      const guess = closest(platform ?? '', platforms);
      throw new InboxkitError(
        `compatibility: unknown email client ${JSON.stringify(raw)}: ${family === '*' ? 'no family has' : `${family} has no`} platform ${JSON.stringify(platform)}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ''}; ${family === '*' ? 'the platforms are' : 'its platforms are'} ${platforms.join(', ')}.`,
      );
    }
  }
  return [...out];
}

/** Clients for which every feature of the data set has data (the ones the package can check without throwing). */
function completeClients(data: CaniemailLibrary['rawData']): string[] {
  const complete: string[] = [];
  for (const [family, platforms] of knownClients(data)) {
    for (const platform of platforms) {
      if (data.data.every((f) => f.stats[family]?.[platform] !== undefined)) complete.push(`${family}.${platform}`);
    }
  }
  return complete;
}

/** Elements counted as Mailpit counts them: the body's (or, in a whole document, all but html, head and meta), plus scripts. */
function countElements(html: string): number {
  const $ = cheerio.load(html);
  return /<\/body>/i.test(html) ? $('*:not(html):not(head):not(meta), script').length : $('body *, script').length;
}

function round(value: number): number {
  return Math.round(Math.min(100, Math.max(0, value)) * 100) / 100;
}

/**
 * Checks HTML against the caniemail data for the named clients.
 *
 * @param html - the email's HTML, whole document or fragment.
 * @param clients - family names (`gmail`), `family.platform` (`outlook.windows`), `*.platform` or `*`.
 * @throws InboxkitError for an unknown client name, naming the known ones.
 * @example
 * ```ts
 * const report = await checkCompatibility(html, ['gmail.desktop-webmail', 'outlook.windows']);
 * for (const client of report.clients) console.log(client.name, client.unsupported.map((f) => f.feature));
 * ```
 */
export async function checkCompatibility(html: string | null, clients?: EmailClientNames): Promise<CompatibilityReport> {
  return compatibilityWith(await loadCaniemail(), html, clients);
}

/**
 * {@link checkCompatibility} over a given copy of the caniemail package: the
 * web viewer's browser bundle (the client's own is the bundle in `vendor/`).
 */
export function compatibilityWith(library: CaniemailLibrary, html: string | null, clients?: EmailClientNames): CompatibilityReport {
  const { caniemail, rawData } = library;
  const wanted = resolveEmailClients(clients, knownClients(rawData));
  const source = html === null || html.trim() === '' ? 'none' : 'original';
  const base = { source, dataUpdated: rawData.last_update_date } as const;
  if (source === 'none' || html === null) {
    const clientsOut = wanted.map((client) => emptyClient(client, rawData));
    return { ...base, compatible: true, clients: clientsOut, elements: 0 };
  }

  const features = new Map(rawData.data.map((f) => [f.title, f]));
  // The package throws when a feature it finds has no data for a client it is
  // asked about, and many clients have gaps; so it finds the features through
  // the clients with complete data, and each asked client's support is read
  // from the data set here, the way the package reads it (the latest version).
  const { issues } = caniemail({ clients: completeClients(rawData), html });
  const occurrences = new Map<string, number>();
  const lines = new Map<string, Set<number>>();
  for (const map of [issues.errors, issues.warnings]) {
    for (const list of map.values()) {
      const counts = new Map<string, number>();
      for (const issue of list) {
        counts.set(issue.title, (counts.get(issue.title) ?? 0) + 1);
        const line = issue.position?.start.line;
        if (line !== undefined) lines.set(issue.title, (lines.get(issue.title) ?? new Set()).add(line));
      }
      for (const [title, n] of counts) occurrences.set(title, Math.max(occurrences.get(title) ?? 0, n));
    }
  }
  const elements = countElements(html);

  const clientsOut = wanted.map((client): ClientCompatibility => {
    const [family = '', platform = ''] = client.split('.');
    const unsupportedUses: FeatureUse[] = [];
    const partialUses: FeatureUse[] = [];
    let partial = 0;
    let unsupported = 0;
    for (const [title, found] of occurrences) {
      const feature = features.get(title);
      const stats = feature?.stats[family]?.[platform];
      if (!feature || !stats || Object.keys(stats).length === 0) continue;
      const versions = Object.values(stats);
      const no = versions.filter((v) => v.startsWith('n')).length;
      const yes = versions.filter((v) => v.startsWith('y')).length;
      const weight = found / Math.max(1, elements);
      partial = Math.max(partial, ((versions.length - yes - no) / versions.length) * 100 * weight);
      unsupported = Math.max(unsupported, (no / versions.length) * 100 * weight);

      const latest = stats[Object.keys(stats).sort().at(-1) as string] ?? 'y';
      if (latest.startsWith('y')) continue;
      const notes = [...latest.matchAll(/#(\d+)/g)].map((m) => feature.notes_by_num?.[m[1] as string]).filter((n): n is string => typeof n === 'string');
      const use: FeatureUse = {
        feature: feature.title,
        slug: feature.slug,
        category: feature.category,
        url: feature.url,
        occurrences: found,
        lines: [...(lines.get(title) ?? [])].sort((a, b) => a - b).slice(0, MAX_LINES),
        notes,
      };
      (latest.startsWith('n') ? unsupportedUses : partialUses).push(use);
    }
    return {
      ...nameOf(client, rawData),
      unsupported: unsupportedUses,
      partial: partialUses,
      score: { supported: round(100 - round(partial) - round(unsupported)), partial: round(partial), unsupported: round(unsupported) },
    };
  });
  return { ...base, compatible: clientsOut.every((c) => c.unsupported.length === 0), clients: clientsOut, elements };
}

function nameOf(client: string, data: CaniemailLibrary['rawData']): Pick<ClientCompatibility, 'client' | 'name' | 'family' | 'platform'> {
  const [family = '', platform = ''] = client.split('.');
  return { client, family, platform, name: `${data.nicenames.family[family] ?? family} ${data.nicenames.platform[platform] ?? platform}` };
}

function emptyClient(client: string, data: CaniemailLibrary['rawData']): ClientCompatibility {
  return { ...nameOf(client, data), unsupported: [], partial: [], score: { supported: 100, partial: 0, unsupported: 0 } };
}

/** What {@link messageCompatibility} needs of a message. */
export interface CompatibilitySource<O = unknown> {
  /** The sanitized HTML, the fallback when the raw source cannot be read. */
  html: string | null;
  /** The message's original parts, read and parsed once (`message.original()`). */
  original(options?: O): Promise<ParsedOriginal>;
}

/**
 * The compatibility of a received message: its original HTML part (from the
 * raw source), or its sanitized HTML when the server does not serve raw sources.
 */
export async function messageCompatibility<O>(message: CompatibilitySource<O>, clients?: EmailClientNames, options?: O): Promise<CompatibilityReport> {
  // Only a server without the raw-source extension is a reason to fall back; other failures are the caller's to see.
  const original = await originalHtml(message, options);
  if (original !== undefined) return checkCompatibility(original, clients);
  const report = await checkCompatibility(message.html, clients);
  return report.source === 'original' ? { ...report, source: 'sanitized' } : report;
}

/** How one client supports one feature of the caniemail data (its latest tested version). */
export interface ClientFeatureSupport {
  /** caniemail's id, e.g. `html-style`. */
  slug: string;
  /** caniemail's title, e.g. `<style> element`. */
  feature: string;
  /** `html`, `css`, `image` or `others`. */
  category: string;
  /** The feature's page on caniemail.com. */
  url: string;
  /** `yes`, `partial`, `no`, or `unknown` (no data for this client). */
  support: 'yes' | 'partial' | 'no' | 'unknown';
}

/**
 * Every feature of the caniemail data with one client's support (its latest
 * tested version), for client profiles that render an email as that client would.
 *
 * @param client - one `family.platform`, e.g. `gmail.desktop-webmail`.
 * @throws InboxkitError for an unknown client or a name that stands for several.
 */
export async function clientFeatureSupport(client: string, library?: CaniemailLibrary): Promise<{ client: string; name: string; dataUpdated: string; features: ClientFeatureSupport[] }> {
  // The viewer passes its browser bundle; the client loads the one in vendor/.
  const { rawData } = library ?? (await loadCaniemail());
  const known = knownClients(rawData);
  let resolved: string[];
  try {
    resolved = resolveEmailClients(client, known);
  } catch (error) {
    throw error instanceof InboxkitError ? new InboxkitError(error.message.replace(/^compatibility:/, 'client profile:')) : error;
  }
  if (resolved.length !== 1) {
    throw new InboxkitError(`client profile: ${JSON.stringify(client)} stands for ${resolved.length} clients (${resolved.join(', ')}); name one platform, e.g. ${JSON.stringify(resolved[0])}.`);
  }
  const [family = '', platform = ''] = (resolved[0] as string).split('.');
  const features = rawData.data.map((f): ClientFeatureSupport => {
    const stats = f.stats[family]?.[platform];
    const latest = stats && Object.keys(stats).length > 0 ? (stats[Object.keys(stats).sort().at(-1) as string] ?? '') : '';
    const support = latest.startsWith('y') ? 'yes' : latest.startsWith('n') ? 'no' : latest.startsWith('a') ? 'partial' : 'unknown';
    return { slug: f.slug, feature: f.title, category: f.category, url: f.url, support };
  });
  return { ...nameOf(resolved[0] as string, rawData), dataUpdated: rawData.last_update_date, features };
}
