/**
 * The held-out measure of extraction (issue 49): reads the real-template
 * corpora (tests/fixtures/verification-projects and verification-sms), puts
 * each project on the side of the split its name decides
 * (tests/support/verification-corpus.ts, `isHeldOut`), and prints, for the
 * held-out part and the development part: codes right (of the messages that
 * carry one), links right, and false codes on the messages that carry none.
 *
 * Run: `npm run extraction:heldout`. `--failures` lists what went wrong in
 * the development part (the held-out part's failures stay unread, so rule
 * work cannot tune to them; `--failures=heldout` shows them, for a closing
 * note only). `--record` rewrites tests/fixtures/heldout-split.json from the
 * rule, for projects added to the corpora.
 *
 * @packageDocumentation
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { check, fixtures, HELD_OUT_PERCENT, isHeldOut, load, realCases, type RealCase } from '../tests/support/verification-corpus.ts';

interface Tally { messages: number; projects: Set<string>; sms: number; smsSources: Set<string>; languages: Set<string>; codes: number; codesRight: number; links: number; linksRight: number; none: number; traps: number; falseCodes: number; failures: string[] }

const tally = (): Tally => ({ messages: 0, projects: new Set(), sms: 0, smsSources: new Set(), languages: new Set(), codes: 0, codesRight: 0, links: 0, linksRight: 0, none: 0, traps: 0, falseCodes: 0, failures: [] });

async function measure(cases: RealCase[]): Promise<{ heldOut: Tally; development: Tally }> {
  const out = { heldOut: tally(), development: tally() };
  for (const c of cases) {
    const t = isHeldOut(c.project) ? out.heldOut : out.development;
    const loaded = await load(join(fixtures, c.folder), c.file);
    const result = check(loaded, true);
    t.messages++;
    t.projects.add(c.project);
    t.languages.add((loaded.languages ?? '').split('-')[0] ?? '');
    if (loaded.sms) {
      t.sms++;
      t.smsSources.add(c.project);
    }
    if (loaded.otp === 'none') {
      t.none++;
      if (loaded.trap !== undefined) t.traps++;
      if (result.otp === 'falseCode') t.falseCodes++;
    } else if (loaded.otp !== undefined) {
      t.codes++;
      if (result.otp === 'right') t.codesRight++;
    }
    if (loaded.link !== undefined) {
      t.links++;
      if (result.link === 'right') t.linksRight++;
    }
    if (result.problems.length > 0) t.failures.push(`${c.folder}/${c.file} (${c.project}):\n  ${result.problems.join('\n  ')}`);
  }
  return out;
}

const pct = (n: number, of: number) => (of === 0 ? '–' : `${((100 * n) / of).toFixed(1)} %`);

function row(name: string, t: Tally): Record<string, string | number> {
  return {
    part: name,
    projects: t.projects.size,
    messages: t.messages,
    sms: t.sms,
    'codes right': `${t.codesRight}/${t.codes} (${pct(t.codesRight, t.codes)})`,
    'links right': `${t.linksRight}/${t.links} (${pct(t.linksRight, t.links)})`,
    'codes + links right': pct(t.codesRight + t.linksRight, t.codes + t.links),
    'false codes': `${t.falseCodes}/${t.none} (${pct(t.falseCodes, t.none)})`,
  };
}

/** The breadth of both parts together, as the issue counts it. */
function breadth(a: Tally, b: Tally): string {
  const union = <T>(x: Set<T>, y: Set<T>) => new Set([...x, ...y]).size;
  const messages = a.messages + b.messages;
  const none = a.none + b.none;
  return [
    `breadth: ${messages} messages from ${union(a.projects, b.projects)} projects or providers, in ${union(a.languages, b.languages)} languages;`,
    `${a.sms + b.sms} SMS from ${union(a.smsSources, b.smsSources)} sources;`,
    `${none} with no code (${pct(none, messages)}), ${a.traps + b.traps} of them traps (${pct(a.traps + b.traps, messages)}: orders, shipping, receipts, invoices, promotions, alerts, notices; X-Test-Trap)`,
  ].join(' ');
}

const cases = realCases();
if (process.argv.includes('--record')) {
  const projects = [...new Set(cases.map((c) => c.project))].sort((a, b) => a.localeCompare(b));
  const split = {
    rule: `held out when the first 32 bits (big-endian) of SHA-256(project name trimmed, lower case) modulo 100 < ${HELD_OUT_PERCENT} (tests/support/verification-corpus.ts, isHeldOut)`,
    heldOut: projects.filter(isHeldOut),
    development: projects.filter((p) => !isHeldOut(p)),
  };
  writeFileSync(join(fixtures, 'heldout-split.json'), `${JSON.stringify(split, null, 2)}\n`);
  console.log(`recorded ${split.heldOut.length} held-out and ${split.development.length} development projects in tests/fixtures/heldout-split.json`);
}
const { heldOut, development } = await measure(cases);
console.table([row('held-out', heldOut), row('development', development)]);
console.log(breadth(heldOut, development));
const show = process.argv.find((a) => a.startsWith('--failures'));
if (show !== undefined) {
  const part = show === '--failures=heldout' ? heldOut : development;
  console.log(part.failures.length === 0 ? 'no failures' : part.failures.join('\n'));
}
