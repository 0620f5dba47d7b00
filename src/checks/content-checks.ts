/**
 * Content checks: the rules of `content-rules.ts` applied to a message's
 * headers and original parts (read from the raw source with `postal-mime`, once per
 * message, by `original.ts`: the sanitized HTML of the API has lost exactly the script,
 * form and `<link>` elements some rules look for). Pure and browser-safe, so the
 * viewer runs the same code.
 *
 * @packageDocumentation
 */
import { Tokenizer } from 'htmlparser2';
import { CONTENT_RULES, GMAIL_CLIP_BYTES } from './content-rules.ts';
import type { ContentRuleId, ContentSeverity } from './content-rules.ts';

/** One thing a content rule found. */
export interface ContentFinding {
  /** The rule's id (see `CONTENT_RULES`). */
  rule: ContentRuleId;
  /** `error` or `warning`. */
  severity: ContentSeverity;
  /** What is wrong, and the fix. */
  message: string;
  /** Where: a header (`header List-Unsubscribe`) or a place in the HTML (`html line 12: <img src="…">`). */
  where: string;
}

/** Options of `message.contentChecks()` (besides a request's options). */
export interface ContentCheckOptions {
  /**
   * Whether the message is bulk mail (a newsletter, a campaign), for which the
   * unsubscribe rules apply.
   * @defaultValue guessed: a `List-Id`, `List-Unsubscribe` or `Precedence: bulk|list` header, or "unsubscribe" in the body
   */
  bulk?: boolean;
}

/** A message's parts as the rules read them. */
export interface ContentSource {
  /** Header name (lower-case) and value, in order, repeated headers repeated. */
  headers: Array<{ key: string; value: string }>;
  /** The original HTML part, or null. */
  html: string | null;
  /** The text/plain part, or null. */
  text: string | null;
}

const MAX_FINDINGS_PER_RULE = 20;

function finding(rule: ContentRuleId, message: string, where: string): ContentFinding {
  const known = CONTENT_RULES[rule];
  return { rule, severity: known.severity, message: `${message}. Fix: ${known.fix}`, where };
}

function header(source: ContentSource, name: string): string[] {
  return source.headers.filter((h) => h.key === name).map((h) => h.value.replace(/\r?\n[ \t]+/g, ' ').trim());
}

/** The URIs of a List-Unsubscribe value (comments such as `(Unsubscribe)` allowed, RFC 2369), or null when it is not a list of `<URI>`s. */
export function listUnsubscribeUris(value: string): string[] | null {
  const uris: string[] = [];
  for (const part of value.replace(/\([^()]*\)/g, ' ').split(',')) {
    const match = /^\s*<([^<>\s]+)>\s*$/.exec(part);
    if (!match?.[1]) return null;
    uris.push(match[1]);
  }
  return uris.length > 0 ? uris : null;
}

/**
 * Whether a URL points at this machine (`localhost`, `127.0.0.1`, `[::1]`): the
 * test app's own origin, which runs over plain http in tests and over https in
 * production, so the https rules let it pass.
 */
function isLoopback(url: string): boolean {
  try {
    const host = new URL(url.trim()).hostname;
    return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}

function looksBulk(source: ContentSource): boolean {
  if (header(source, 'list-id').length > 0 || header(source, 'list-unsubscribe').length > 0) return true;
  if (header(source, 'precedence').some((p) => /^(bulk|list)$/i.test(p))) return true;
  return /unsubscribe/i.test(`${source.text ?? ''} ${source.html ?? ''}`);
}

function unsubscribeFindings(source: ContentSource, bulk: boolean): ContentFinding[] {
  const values = header(source, 'list-unsubscribe');
  if (values.length === 0) {
    return bulk ? [finding('list-unsubscribe', 'This looks like bulk mail but has no List-Unsubscribe header', 'header List-Unsubscribe')] : [];
  }
  const uris = listUnsubscribeUris(values.join(', '));
  const where = `header List-Unsubscribe: ${values.join(', ').slice(0, 120)}`;
  if (uris === null) return [finding('list-unsubscribe-syntax', 'List-Unsubscribe is not a comma-separated list of <URI>s', where)];
  const findings: ContentFinding[] = [];
  const bad = uris.filter((u) => !/^(https?|mailto):/i.test(u));
  if (bad.length > 0) findings.push(finding('list-unsubscribe-syntax', `List-Unsubscribe has URIs that are neither https: nor mailto: (${bad.join(', ')})`, where));
  if (bulk) {
    const post = header(source, 'list-unsubscribe-post');
    const https = uris.some((u) => /^https:/i.test(u) || (/^http:/i.test(u) && isLoopback(u)));
    if (!post.some((p) => /^List-Unsubscribe=One-Click$/i.test(p))) {
      findings.push(finding('one-click-unsubscribe', post.length === 0 ? 'Bulk mail without List-Unsubscribe-Post: List-Unsubscribe=One-Click' : `List-Unsubscribe-Post is ${JSON.stringify(post.join(', '))}, not List-Unsubscribe=One-Click`, 'header List-Unsubscribe-Post'));
    } else if (!https) {
      findings.push(finding('one-click-unsubscribe', 'One-click unsubscribe needs an https URI in List-Unsubscribe; it has none', where));
    }
  }
  return findings;
}

/** Where an element is: its line in the HTML and its start tag. */
function place(tag: string, line: number): string {
  const html = tag.replace(/\s+/g, ' ');
  return `html line ${line}: ${html.length > 100 ? `${html.slice(0, 99)}…` : html}`;
}

/** A start tag as a serializer writes it: the name, then each attribute with its value quoted. */
function startTag(name: string, attributes: Record<string, string>): string {
  const attrs = Object.entries(attributes).map(([key, value]) => ` ${key}="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`);
  return `<${name}${attrs.join('')}>`;
}

/** The 1-based line of each offset, from the offsets of the line breaks (found once). */
function lineFinder(html: string): (offset: number) => number {
  const breaks: number[] = [];
  for (let i = html.indexOf('\n'); i !== -1; i = html.indexOf('\n', i + 1)) breaks.push(i);
  return (offset) => {
    let low = 0;
    let high = breaks.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((breaks[mid] as number) < offset) low = mid + 1;
      else high = mid;
    }
    return low + 1;
  };
}

/** The order the HTML findings are reported in, by what found them. */
const GROUPS: readonly string[] = ['img-alt', 'script', 'form', 'link', 'link-element', 'style', 'plain-http-link'];

/** What one start tag breaks, if anything: the rule and the finding's text. */
function tagFinding(name: string, attributes: Record<string, string>): [ContentRuleId, string] | null {
  const attr = (key: string) => attributes[key];
  switch (name) {
    case 'img':
      return attr('alt') === undefined ? ['img-alt', `An image (${(attr('src') ?? '').slice(0, 80) || 'no src'}) has no alt attribute`] : null;
    case 'script':
      return ['script', 'The HTML has a <script>'];
    case 'form':
      return ['form', 'The HTML has a <form>'];
    case 'link':
      return /stylesheet/i.test(attr('rel') ?? '') ? ['external-stylesheet', `An external stylesheet is linked (${attr('href') ?? ''})`] : ['link-element', `A <link rel="${attr('rel') ?? ''}"> element`];
    case 'a': {
      const href = (attr('href') ?? '').trim();
      return attr('href') !== undefined && /^http:\/\//i.test(href) && !isLoopback(href) ? ['plain-http-link', `A link over plain http: ${href.slice(0, 120)}`] : null;
    }
    default:
      return null;
  }
}

/** An open tag as the tokenizer hands it over, piece by piece. */
interface OpenTag {
  name: string;
  offset: number;
  attributes: Record<string, string>;
  attribute: string;
  value: string;
}

/**
 * The rules of the HTML part, in one pass of htmlparser2's tokenizer: no tree
 * and no stack of open elements is built and nothing recurses, so the time
 * grows with the HTML's size alone, however deep its nesting, however
 * misnested, however many links and images; each rule reports its first
 * {@link MAX_FINDINGS_PER_RULE} findings.
 */
function htmlFindings(html: string): ContentFinding[] {
  const findings: ContentFinding[] = [];
  const size = new TextEncoder().encode(html).byteLength;
  if (size > GMAIL_CLIP_BYTES) findings.push(finding('html-size', `The HTML is ${size} bytes, over Gmail's clipping limit of ${GMAIL_CLIP_BYTES}`, 'html part'));
  const lineOf = lineFinder(html);
  const counts = new Map<ContentRuleId, number>();
  // Findings come out grouped as the rules are listed (an image's, a script's, …, a style's, a link's), each group in document order.
  const phase = new Map<ContentFinding, number>();
  const add = (rule: ContentRuleId, text: string, tag: string, offset: number, group: number) => {
    const count = counts.get(rule) ?? 0;
    counts.set(rule, count + 1);
    if (count >= MAX_FINDINGS_PER_RULE) return;
    const found = finding(rule, text, place(tag, lineOf(offset)));
    phase.set(found, group);
    findings.push(found);
  };
  let tag: OpenTag | null = null;
  let style: { tag: string; offset: number; text: string } | null = null;
  const opened = (open: OpenTag) => {
    const { name, attributes, offset } = open;
    if (name === 'style') style = { tag: startTag(name, attributes), offset, text: '' };
    const found = tagFinding(name, attributes);
    if (found) add(found[0], found[1], startTag(name, attributes), offset, GROUPS.indexOf(found[0] === 'external-stylesheet' ? 'link' : found[0]));
  };
  const tokenizer = new Tokenizer(
    { decodeEntities: true },
    {
      onopentagname: (start, end) => void (tag = { name: html.slice(start, end).toLowerCase(), offset: start - 1, attributes: Object.create(null) as Record<string, string>, attribute: '', value: '' }),
      onattribname: (start, end) => tag && ((tag.attribute = html.slice(start, end).toLowerCase()), (tag.value = '')),
      onattribdata: (start, end) => tag && (tag.value += html.slice(start, end)),
      onattribentity: (codepoint) => tag && (tag.value += String.fromCodePoint(codepoint)),
      onattribend: () => tag && !(tag.attribute in tag.attributes) && (tag.attributes[tag.attribute] = tag.value),
      onopentagend: () => tag && (opened(tag), (tag = null)),
      onselfclosingtag: () => tag && (opened(tag), (tag = null)),
      ontext: (start, end) => style && style.text.length < 1_000_000 && (style.text += html.slice(start, end)),
      ontextentity: () => undefined,
      onclosetag: (start, end) => {
        if (style === null || html.slice(start, end).toLowerCase() !== 'style') return;
        if (/@import\b/i.test(style.text)) add('external-stylesheet', 'A <style> block @imports an external stylesheet', style.tag, style.offset, GROUPS.indexOf('style'));
        style = null;
      },
      oncdata: () => undefined,
      oncomment: () => undefined,
      ondeclaration: () => undefined,
      onprocessinginstruction: () => undefined,
      onend: () => undefined,
    },
  );
  tokenizer.write(html);
  tokenizer.end();
  return findings.sort((a, b) => (phase.get(a) ?? -1) - (phase.get(b) ?? -1));
}

const RFC5322_DATE = /^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),\s*)?\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{4}\s+\d{2}:\d{2}(?::\d{2})?\s+(?:[+-]\d{4}|UT|GMT|[ECMP][SD]T|[A-IK-Za-ik-z])(?:\s*\(.*\))?$/;

function headerFindings(source: ContentSource): ContentFinding[] {
  const findings: ContentFinding[] = [];
  const dates = header(source, 'date');
  if (dates.length === 0) findings.push(finding('date-header', 'The message has no Date header', 'header Date'));
  else if (dates.length > 1) findings.push(finding('date-header', `The message has ${dates.length} Date headers`, 'header Date'));
  else if (!RFC5322_DATE.test(dates[0] ?? '') || Number.isNaN(Date.parse(dates[0] ?? ''))) findings.push(finding('date-header', `Date ${JSON.stringify(dates[0])} is not an RFC 5322 date`, 'header Date'));
  const ids = header(source, 'message-id');
  if (ids.length === 0) findings.push(finding('message-id-header', 'The message has no Message-ID header', 'header Message-ID'));
  else if (ids.length > 1 || !/^<[^<>@\s]+@[^<>@\s]+>$/.test(ids[0] ?? '')) findings.push(finding('message-id-header', `Message-ID ${JSON.stringify(ids.join(', '))} is not one <unique@domain>`, 'header Message-ID'));
  const froms = header(source, 'from');
  if (froms.length === 0) findings.push(finding('from-header', 'The message has no From header', 'header From'));
  else {
    const addresses = (froms.join(',').replace(/"[^"]*"/g, '').match(/[^\s<>,;:"]+@[^\s<>,;:"]+/g) ?? []).filter((a) => a.includes('@'));
    if (froms.length > 1 || addresses.length !== 1) findings.push(finding('from-header', `From ${JSON.stringify(froms.join(', '))} is not exactly one mailbox`, 'header From'));
    else if (!/^[^@\s]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(addresses[0] ?? '')) findings.push(finding('from-header', `From address ${JSON.stringify(addresses[0])} has no valid domain`, 'header From'));
  }
  return findings;
}

/**
 * Applies every content rule to a message's parts.
 *
 * @example
 * ```ts
 * const findings = checkContent({ headers: [{ key: 'from', value: 'a@acme.example' }], html: '<img src="x.png">', text: null });
 * ```
 */
export function checkContent(source: ContentSource, options: Pick<ContentCheckOptions, 'bulk'> = {}): ContentFinding[] {
  const bulk = options.bulk ?? looksBulk(source);
  const findings = [...headerFindings(source), ...unsubscribeFindings(source, bulk)];
  if (source.html !== null) {
    findings.push(...htmlFindings(source.html));
    if (source.text === null || source.text.trim() === '') findings.push(finding('text-part', 'The message has HTML but no text/plain part', 'mime structure'));
  }
  return findings;
}
