import { test, expect } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simpleParser } from 'mailparser';
import { extractLinks, extractOtp, findLink, OtpNotFoundError, type LinkQuery } from '../../../src/extract/index.ts';

/**
 * The verification corpus: one .eml per email, its expectations in X-Test-*
 * headers. The .eml is decoded with mailparser (quoted-printable, charsets,
 * text derived from HTML when there is none), as the server does before
 * extraction sees the bodies.
 *
 * X-Test-Expect-Otp: the code, or "none" when extractOtp must throw.
 * X-Test-Expect-Link + X-Test-Link-Filter (JSON: text/href/host strings):
 * findLink(filter) must return exactly that href.
 */
const dir = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/verification');
const files = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();

interface Case { file: string; subject: string | null; html: string | null; text: string | null; baseUrl: string | undefined; otp: string | undefined; link: string | undefined; filter: LinkQuery | undefined; languages: string | undefined }

async function load(file: string): Promise<Case> {
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
    filter: filter ? (JSON.parse(filter) as LinkQuery) : undefined,
    languages: header('content-language'),
  };
}

/** Returns what went wrong with one email, or an empty list. */
function check(c: Case): { problems: string[]; checks: number } {
  const problems: string[] = [];
  let checks = 0;
  const input = { html: c.html, text: c.text, subject: c.subject, baseUrl: c.baseUrl };
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

test('the corpus holds at least 40 emails, each expecting a link or a code', async () => {
  expect(files.length).toBeGreaterThanOrEqual(40);
  for (const file of files) {
    const c = await load(file);
    expect(c.link !== undefined || (c.otp !== undefined && c.otp !== 'none'), `${file} expects neither a link nor a code`).toBe(true);
    if (c.link !== undefined) expect(c.filter, `${file} has X-Test-Expect-Link but no X-Test-Link-Filter`).toBeDefined();
  }
});

for (const file of files) {
  test(`${file}: the expected link and code are extracted`, async () => {
    const { problems } = check(await load(file));
    expect(problems, problems.join('\n')).toEqual([]);
  });
}

test('every email of the corpus yields its expected link and code', async () => {
  let passed = 0;
  let total = 0;
  let checks = 0;
  const failures: string[] = [];
  for (const file of files) {
    const c = await load(file);
    const result = check(c);
    total++;
    checks += result.checks;
    if (result.problems.length === 0) passed++;
    else failures.push(`${file}:\n  ${result.problems.join('\n  ')}`);
  }
  console.log(`extracted ${passed}/${total} emails correctly (${checks} link and code expectations)`);
  expect(failures, failures.join('\n')).toEqual([]);
});
