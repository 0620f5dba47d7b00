/**
 * How long link and code extraction take, on one ordinary 100 KB email and on
 * the hostile shapes of issue 36 (thousands of links, thousands of code-shaped
 * numbers, deep nesting) at n and 2n. Bounded: each shape runs a few times at
 * two sizes, in this process, with no network.
 *
 * Run: `node bench/extraction.ts` (add `--quick` for fewer repetitions).
 * `--compare DIR` also times the extraction of another checkout (its
 * `src/extract/index.ts`, e.g. a worktree of main) on the same 100 KB email:
 * each checkout in a process of its own (`--one DIR`), the two alternating,
 * so a loaded machine slows both alike and neither pays for the other's
 * garbage. Times are CPU time of the measuring process (user + system),
 * medians.
 *
 * @packageDocumentation
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { extractLinks, extractOtps } from '../src/extract/index.ts';
import { hostileShapes, ordinaryEmail } from '../tests/support/extraction-shapes.ts';

const quick = process.argv.includes('--quick');
const runs = quick ? 3 : 7;
const compareAt = process.argv.indexOf('--compare');
const compareDir = compareAt >= 0 ? process.argv[compareAt + 1] : undefined;
const oneAt = process.argv.indexOf('--one');
const oneDir = oneAt >= 0 ? process.argv[oneAt + 1] : undefined;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function cpu(fn: () => unknown): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function time(fn: () => unknown, times: number): number {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) samples.push(cpu(fn));
  return median(samples);
}

type Extract = { extractLinks: typeof extractLinks; extractOtps: typeof extractOtps };

/** `--one DIR`: both extractions of DIR's checkout on the 100 KB email, the median CPU ms printed alone. */
if (oneDir !== undefined) {
  const other = (await import(pathToFileURL(resolve(oneDir, 'src/extract/index.ts')).href)) as Extract;
  const email = ordinaryEmail(100 * 1024);
  time(() => { other.extractLinks(email); other.extractOtps(email); }, 5);
  console.log(time(() => { other.extractLinks(email); other.extractOtps(email); }, 21).toFixed(2));
  process.exit(0);
}

/** The medians of `rounds` alternating processes for this checkout and `dir`. */
function compare(dir: string, rounds: number): { mine: number; theirs: number } {
  const one = (d: string) => Number(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--one', d], { encoding: 'utf8' }).trim());
  const here = resolve(fileURLToPath(import.meta.url), '../..');
  const mine: number[] = [];
  const theirs: number[] = [];
  for (let i = 0; i < rounds; i++) {
    theirs.push(one(dir));
    mine.push(one(here));
  }
  return { mine: median(mine), theirs: median(theirs) };
}

const ordinary = ordinaryEmail(100 * 1024);
time(() => { extractLinks(ordinary); extractOtps(ordinary); }, 3);
const links = time(() => extractLinks(ordinary), runs * 3);
const otps = time(() => extractOtps(ordinary), runs * 3);
console.log(`ordinary email ${(ordinary.html.length / 1024).toFixed(0)} KB: extractLinks ${links.toFixed(1)} ms, extractOtps ${otps.toFixed(1)} ms, both ${(links + otps).toFixed(1)} ms (median of ${runs * 3})`);
if (compareDir !== undefined) {
  const rounds = quick ? 3 : 7;
  const { mine, theirs } = compare(compareDir, rounds);
  console.log(`100 KB email, both extractions: ${compareDir} ${theirs.toFixed(1)} ms, this checkout ${mine.toFixed(1)} ms (${((mine / theirs - 1) * 100).toFixed(0)} %), medians of ${rounds} alternating processes`);
}

for (const shape of hostileShapes(quick ? 1000 : 2000)) {
  const small = shape.build(shape.n);
  const large = shape.build(shape.n * 2);
  const fn = shape.kind === 'links' ? extractLinks : extractOtps;
  const a = time(() => fn(small), runs);
  const b = time(() => fn(large), runs);
  console.log(`${shape.name}: n=${shape.n} (${(small.html.length / 1024).toFixed(0)} KB) ${a.toFixed(1)} ms, 2n ${b.toFixed(1)} ms, ratio ${(b / a).toFixed(2)}`);
}
