/**
 * Reading and checking the verification corpora: one .eml per message (an
 * SMS is a text-only .eml marked `X-Test-Channel: sms`), its expectations in
 * X-Test-* headers. The .eml is decoded with mailparser (quoted-printable,
 * charsets, text derived from HTML when there is none), as the server does
 * before extraction sees the bodies.
 *
 * X-Test-Expect-Otp: the code, or "none" when extractOtp must throw.
 * X-Test-Trap: what a message that carries no code is instead (order,
 * shipping, receipt, invoice, promo, alert, notice): the traps the corpus
 * counts, apart from link-only mails.
 * X-Test-Expect-Link + X-Test-Link-Filter: findLink(filter) must return
 * exactly that href. The filter is JSON (an object of text/href/host strings,
 * or a string shorthand) or a RegExp literal such as `/reset/i`.
 *
 * The real-template corpora (verification-projects, verification-sms) are
 * split by project into a development part and a held-out part
 * ({@link isHeldOut}); `npm run extraction:heldout` prints both figures.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import { extractLinks, extractOtp, findLink, OtpNotFoundError, type ExtractInput, type LinkFilterArg } from '../../src/extract/index.ts';

/** The folder of the corpora. */
export const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../fixtures');

/** One message of a corpus and what it must yield. */
export interface Case { file: string; subject: string | null; html: string | null; text: string | null; baseUrl: string | undefined; otp: string | undefined; link: string | undefined; filter: LinkFilterArg | undefined; languages: string | undefined; trap: string | undefined; htmlOnly: boolean; sms: boolean }

function parseFilter(value: string): LinkFilterArg {
  const literal = /^\/(.+)\/([a-z]*)$/.exec(value);
  return literal ? new RegExp(literal[1] ?? '', literal[2]) : (JSON.parse(value) as LinkFilterArg);
}

/** The .eml files of a corpus folder, sorted. */
export function corpusFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();
}

/** Reads one .eml of a corpus. */
export async function load(dir: string, file: string): Promise<Case> {
  const parsed = await simpleParser(readFileSync(join(dir, file)));
  const header = (name: string): string | undefined => {
    const v = parsed.headers.get(name);
    return typeof v === 'string' ? v.trim() : undefined;
  };
  const filter = header('x-test-link-filter');
  const sms = header('x-test-channel') === 'sms';
  return {
    file,
    subject: sms ? null : parsed.subject ?? null,
    html: typeof parsed.html === 'string' ? parsed.html : null,
    // mailparser ends a text body with a line break the SMS did not have.
    text: sms && parsed.text !== undefined ? parsed.text.replace(/\n$/, '') : parsed.text ?? null,
    baseUrl: header('x-test-base-url'),
    otp: header('x-test-expect-otp'),
    link: header('x-test-expect-link'),
    filter: filter ? parseFilter(filter) : undefined,
    languages: header('content-language'),
    trap: header('x-test-trap'),
    htmlOnly: parsed.headers.get('content-type') !== undefined && (parsed.headers.get('content-type') as { value?: string }).value === 'text/html',
    sms,
  };
}

/** The outcome of one message: what went wrong, and how each expectation fared. */
export interface Checked { problems: string[]; checks: number; otp?: 'right' | 'wrong' | 'falseCode'; link?: 'right' | 'wrong' }

/**
 * What went wrong with one message, read as the server hands it over (with a
 * text body mailparser derives from an HTML-only mail) and, for an HTML-only
 * mail when `htmlAlone` is set, from its HTML and subject alone: the HTML
 * reading has to find the code and link by itself.
 */
export function check(c: Case, htmlAlone = false): Checked {
  const full = checkInput(c, { html: c.html, text: c.text, subject: c.subject, baseUrl: c.baseUrl });
  if (!htmlAlone || !c.htmlOnly) return full;
  const alone = checkInput(c, { html: c.html, text: null, subject: c.subject, baseUrl: c.baseUrl });
  const worse = <T extends string>(a: T | undefined, b: T | undefined): T | undefined => (a === 'right' ? b : a);
  return {
    problems: [...full.problems, ...alone.problems.map((p) => `${p} (HTML alone)`)],
    checks: full.checks + alone.checks,
    otp: worse(full.otp, alone.otp),
    link: worse(full.link, alone.link),
  };
}

function checkLink(c: Case, input: ExtractInput, problems: string[]): 'right' | 'wrong' {
  const before = problems.length;
  try {
    const link = findLink(input, c.filter);
    if (link.href !== c.link) problems.push(`link: got ${link.href}, expected ${c.link}`);
    if (!extractLinks(input).some((l) => l.href === c.link)) problems.push('link: missing from extractLinks()');
  } catch (e) {
    problems.push(`link: ${(e as Error).message}`);
  }
  return problems.length === before ? 'right' : 'wrong';
}

function checkOtp(c: Case, input: ExtractInput, problems: string[]): 'right' | 'wrong' | 'falseCode' {
  if (c.otp === 'none') {
    try {
      const code = extractOtp(input);
      problems.push(`otp: expected none, got ${code}`);
      return 'falseCode';
    } catch (e) {
      if (e instanceof OtpNotFoundError) return 'right';
      problems.push(`otp: unexpected ${String(e)}`);
      return 'wrong';
    }
  }
  try {
    const code = extractOtp(input);
    if (code === c.otp) return 'right';
    problems.push(`otp: got ${code}, expected ${c.otp}`);
  } catch (e) {
    problems.push(`otp: ${(e as Error).message}`);
  }
  return 'wrong';
}

function checkInput(c: Case, input: ExtractInput): Checked {
  const problems: string[] = [];
  const out: Checked = { problems, checks: 0 };
  if (c.link !== undefined) {
    out.checks++;
    out.link = checkLink(c, input, problems);
  }
  if (c.otp !== undefined) {
    out.checks++;
    out.otp = checkOtp(c, input, problems);
  }
  return out;
}

/** A row of a SOURCES.md table: `| file | project | source file | commit | licence |`. */
export interface SourceRow { project: string; licence: string }

/** The rows of a corpus folder's SOURCES.md, by file. */
export function sourceRows(dir: string): Map<string, SourceRow> {
  return new Map(
    readFileSync(join(dir, 'SOURCES.md'), 'utf8')
      .split('\n')
      .map((line) => line.split('|').map((cell) => cell.trim()))
      .filter((cells) => cells[1]?.endsWith('.eml'))
      .map((cells) => [cells[1] as string, { project: cells[2] ?? '', licence: cells[5] ?? '' }]),
  );
}

/** The corpora of real templates that the held-out measure splits by project. */
export const REAL_CORPORA = ['verification-projects', 'verification-sms'] as const;

/** Percentage of projects held out: a project is held out when its hash, taken modulo 100, is below it. */
export const HELD_OUT_PERCENT = 35;

/**
 * Whether a project belongs to the held-out part: the first 32 bits of the
 * SHA-256 of its name (trimmed, lower case), modulo 100, below
 * {@link HELD_OUT_PERCENT}. A function of the name alone, so a project is
 * placed before anyone looks at its messages; rule work reads only the
 * development part.
 */
export function isHeldOut(project: string): boolean {
  const digest = createHash('sha256').update(project.trim().toLowerCase()).digest();
  return digest.readUInt32BE(0) % 100 < HELD_OUT_PERCENT;
}

/** The split as recorded in `tests/fixtures/heldout-split.json`. */
export interface RecordedSplit { rule: string; heldOut: string[]; development: string[] }

/** The recorded split. */
export function recordedSplit(): RecordedSplit {
  return JSON.parse(readFileSync(join(fixtures, 'heldout-split.json'), 'utf8')) as RecordedSplit;
}

/** One message of the real corpora with its project. */
export interface RealCase { folder: string; file: string; project: string }

/** Every message of the real corpora, with the project its SOURCES.md names. */
export function realCases(): RealCase[] {
  const out: RealCase[] = [];
  for (const folder of REAL_CORPORA) {
    const dir = join(fixtures, folder);
    let files: string[];
    try {
      files = corpusFiles(dir);
    } catch {
      continue;
    }
    const rows = sourceRows(dir);
    for (const file of files) out.push({ folder, file, project: rows.get(file)?.project ?? '' });
  }
  return out;
}
