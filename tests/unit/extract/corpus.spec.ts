import { test, expect } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import { extractLinks, extractOtp, findLink, OtpNotFoundError, type ExtractInput, type LinkFilterArg } from '../../../src/extract/index.ts';
import { printFigure } from '../../support/figures.ts';

/**
 * The verification corpora: one .eml per email, its expectations in X-Test-*
 * headers. The .eml is decoded with mailparser (quoted-printable, charsets,
 * text derived from HTML when there is none), as the server does before
 * extraction sees the bodies.
 *
 * - fixtures/verification: hand-written emails of common senders.
 * - fixtures/verification-frameworks: emails in the shapes that email
 *   frameworks and identity systems produce (MJML, Foundation, Maizzle,
 *   Rails/Devise, Django, Laravel markdown mail, Keycloak-style FreeMarker,
 *   Go templates, Handlebars layouts): zeroed font sizes, letter-only codes,
 *   long and grouped codes, link filters written as the button's text.
 * - fixtures/verification-families: written for issue 28, in several
 *   languages: mixed-case codes (`hT4wq9`) and their distractors (names with
 *   a number, session ids, base64 pieces), codes announced in the paragraph
 *   before a number set apart (and phone numbers after a code word that must
 *   stay phone numbers), and sibling links whose URLs share the filter's word.
 *
 * - fixtures/verification-projects: real templates of open-source projects
 *   (issue 37), rendered as each project renders them; each names its source
 *   (X-Test-Source: repository, file, commit) and licence (X-Test-License),
 *   listed in its SOURCES.md.
 *
 * X-Test-Expect-Otp: the code, or "none" when extractOtp must throw.
 * X-Test-Expect-Link + X-Test-Link-Filter: findLink(filter) must return
 * exactly that href. The filter is JSON (an object of text/href/host strings,
 * or a string shorthand) or a RegExp literal such as `/reset/i`.
 */
const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures');

interface Case { file: string; subject: string | null; html: string | null; text: string | null; baseUrl: string | undefined; otp: string | undefined; link: string | undefined; filter: LinkFilterArg | undefined; languages: string | undefined; htmlOnly: boolean }

function parseFilter(value: string): LinkFilterArg {
  const literal = /^\/(.+)\/([a-z]*)$/.exec(value);
  return literal ? new RegExp(literal[1] ?? '', literal[2]) : (JSON.parse(value) as LinkFilterArg);
}

async function load(dir: string, file: string): Promise<Case> {
  const parsed = await simpleParser(readFileSync(join(dir, file)));
  const header = (name: string): string | undefined => {
    const v = parsed.headers.get(name);
    return typeof v === 'string' ? v.trim() : undefined;
  };
  const filter = header('x-test-link-filter');
  return {
    file,
    subject: parsed.subject ?? null,
    html: typeof parsed.html === 'string' ? parsed.html : null,
    text: parsed.text ?? null,
    baseUrl: header('x-test-base-url'),
    otp: header('x-test-expect-otp'),
    link: header('x-test-expect-link'),
    filter: filter ? parseFilter(filter) : undefined,
    languages: header('content-language'),
    htmlOnly: parsed.headers.get('content-type') !== undefined && (parsed.headers.get('content-type') as { value?: string }).value === 'text/html',
  };
}

/** Returns what went wrong with one email, or an empty list. */
/**
 * What went wrong with one email, read as the server hands it over (with a
 * text body mailparser derives from an HTML-only mail) and, for an HTML-only
 * mail when `htmlAlone` is set, from its HTML and subject alone: the HTML
 * reading has to find the code and link by itself.
 */
function check(c: Case, htmlAlone = false): { problems: string[]; checks: number } {
  const full = checkInput(c, { html: c.html, text: c.text, subject: c.subject, baseUrl: c.baseUrl });
  if (!htmlAlone || !c.htmlOnly) return full;
  const alone = checkInput(c, { html: c.html, text: null, subject: c.subject, baseUrl: c.baseUrl });
  return { problems: [...full.problems, ...alone.problems.map((p) => `${p} (HTML alone)`)], checks: full.checks + alone.checks };
}

function checkInput(c: Case, input: ExtractInput): { problems: string[]; checks: number } {
  const problems: string[] = [];
  let checks = 0;
  if (c.link !== undefined) {
    checks++;
    try {
      const link = findLink(input, c.filter);
      if (link.href !== c.link) problems.push(`link: got ${link.href}, expected ${c.link}`);
      if (!extractLinks(input).some((l) => l.href === c.link)) problems.push('link: missing from extractLinks()');
    } catch (e) {
      problems.push(`link: ${(e as Error).message}`);
    }
  }
  if (c.otp !== undefined) {
    checks++;
    if (c.otp === 'none') {
      try {
        const code = extractOtp(input);
        problems.push(`otp: expected none, got ${code}`);
      } catch (e) {
        if (!(e instanceof OtpNotFoundError)) problems.push(`otp: unexpected ${String(e)}`);
      }
    } else {
      try {
        const code = extractOtp(input);
        if (code !== c.otp) problems.push(`otp: got ${code}, expected ${c.otp}`);
      } catch (e) {
        problems.push(`otp: ${(e as Error).message}`);
      }
    }
  }
  return { problems, checks };
}

const corpora = [['verification', false, 40], ['verification-frameworks', true, 40], ['verification-families', true, 20], ['verification-projects', true, 60]] as const;

test.describe('verification-projects: the breadth of the real templates', () => {
  const folderDir = join(fixtures, 'verification-projects');
  const files = readdirSync(folderDir).filter((f) => f.endsWith('.eml')).sort();
  /** SOURCES.md's table rows: `| file | project | source file | commit | licence |`. */
  const rows = new Map(
    readFileSync(join(folderDir, 'SOURCES.md'), 'utf8')
      .split('\n')
      .map((line) => line.split('|').map((cell) => cell.trim()))
      .filter((cells) => cells[1]?.endsWith('.eml'))
      .map((cells) => [cells[1] as string, { project: cells[2] ?? '', licence: cells[5] ?? '' }]),
  );
  const language = (file: string) => /^Content-Language: ([a-z]{2})/m.exec(readFileSync(join(folderDir, file), 'utf8'))?.[1];

  test('every email is listed in SOURCES.md with its project and a permissive licence', () => {
    for (const file of files) {
      const row = rows.get(file);
      expect(row, `${file} is not in SOURCES.md's tables`).toBeDefined();
      expect(row?.licence, `${file}: only permissively licensed templates are quoted`).toMatch(/^(MIT|BSD-[23]-Clause|Apache-2\.0|ISC|MPL-2\.0)\b/);
    }
  });

  test('the emails come from at least 30 projects, in at least 14 languages, Arabic or Hebrew, Turkish, Polish, Vietnamese and Hindi or Indonesian among them', () => {
    const projects = new Set(files.map((f) => rows.get(f)?.project));
    const languages = new Set(files.map(language));
    printFigure(`verification-projects: ${files.length} emails from ${projects.size} projects in ${languages.size} languages`);
    expect(projects.size).toBeGreaterThanOrEqual(30);
    expect(languages.size).toBeGreaterThanOrEqual(14);
    for (const wanted of [['ar', 'he'], ['tr'], ['pl'], ['vi'], ['hi', 'id']]) {
      expect(wanted.some((l) => languages.has(l)), `no email in ${wanted.join(' or ')}`).toBe(true);
    }
  });
});
for (const [folder, htmlAlone, atLeast] of corpora) {
  test.describe(folder, () => {
    const folderDir = join(fixtures, folder);
    const files = readdirSync(folderDir).filter((f) => f.endsWith('.eml')).sort();
    test(`the corpus holds at least ${atLeast} emails, each expecting a link or a code`, async () => {
      expect(files.length).toBeGreaterThanOrEqual(atLeast);
      for (const file of files) {
        const c = await load(folderDir, file);
        expect(c.link !== undefined || (c.otp !== undefined && c.otp !== 'none'), `${file} expects neither a link nor a code`).toBe(true);
        if (c.link !== undefined) expect(c.filter, `${file} has X-Test-Expect-Link but no X-Test-Link-Filter`).toBeDefined();
        if (folder === 'verification-projects') {
          const raw = readFileSync(join(folderDir, file), 'utf8');
          expect(raw, `${file} names no source (X-Test-Source)`).toMatch(/^X-Test-Source: \S+\/\S+ \S+@[0-9a-f]{40}/m);
          expect(raw, `${file} names no licence (X-Test-License)`).toMatch(/^X-Test-License: \S+/m);
        }
      }
    });

    for (const file of files) {
      test(`${file}: the expected link and code are extracted`, async () => {
        const { problems } = check(await load(folderDir, file), htmlAlone);
        expect(problems, problems.join('\n')).toEqual([]);
      });
    }

    test('every email of the corpus yields its expected link and code', async () => {
      let passed = 0;
      let total = 0;
      let checks = 0;
      const failures: string[] = [];
      for (const file of files) {
        const c = await load(folderDir, file);
        const result = check(c, htmlAlone);
        total++;
        checks += result.checks;
        if (result.problems.length === 0) passed++;
        else failures.push(`${file}:\n  ${result.problems.join('\n  ')}`);
      }
      printFigure(`${folder}: extracted ${passed}/${total} emails correctly (${checks} link and code expectations)`);
      expect(failures, failures.join('\n')).toEqual([]);
    });
  });
}
