/**
 * How long link and code extraction take, on one ordinary 100 KB email and on
 * the hostile shapes of issue 36 (thousands of links, thousands of code-shaped
 * numbers, deep nesting) at n and 2n. Bounded: each shape runs a few times at
 * two sizes, in this process, with no network.
 *
 * Run: `node bench/extraction.ts` (add `--quick` for fewer repetitions).
 * `--compare DIR` also times the extraction of another checkout (its
 * `src/extract/index.ts`, e.g. a worktree of main) on the same 100 KB email,
 * runs interleaved, so a loaded machine slows both alike. Times are CPU time
 * of this process (user + system), medians.
 *
 * @packageDocumentation
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { extractLinks, extractOtps } from '../src/extract/index.ts';
import { hostileShapes, ordinaryEmail } from '../tests/support/extraction-shapes.ts';

const quick = process.argv.includes('--quick');
const runs = quick ? 3 : 7;
const compareAt = process.argv.indexOf('--compare');
const compareDir = compareAt >= 0 ? process.argv[compareAt + 1] : undefined;

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

/** Both extractions on `email`, this checkout's and the other's, interleaved: medians in ms. */
function compare(other: Extract, email: ReturnType<typeof ordinaryEmail>, times: number): { mine: number; theirs: number } {
  const mine: number[] = [];
  const theirs: number[] = [];
  for (let i = 0; i < times; i++) {
    theirs.push(cpu(() => { other.extractLinks(email); other.extractOtps(email); }));
    mine.push(cpu(() => { extractLinks(email); extractOtps(email); }));
  }
  return { mine: median(mine), theirs: median(theirs) };
}

const ordinary = ordinaryEmail(100 * 1024);
time(() => { extractLinks(ordinary); extractOtps(ordinary); }, 3);
const links = time(() => extractLinks(ordinary), runs * 3);
const otps = time(() => extractOtps(ordinary), runs * 3);
console.log(`ordinary email ${(ordinary.html.length / 1024).toFixed(0)} KB: extractLinks ${links.toFixed(1)} ms, extractOtps ${otps.toFixed(1)} ms, both ${(links + otps).toFixed(1)} ms (median of ${runs * 3})`);
if (compareDir !== undefined) {
  const other = (await import(pathToFileURL(resolve(compareDir, 'src/extract/index.ts')).href)) as Extract;
  compare(other, ordinary, 3);
  const { mine, theirs } = compare(other, ordinary, runs * 5);
  console.log(`100 KB email, both extractions: ${compareDir} ${theirs.toFixed(1)} ms, this checkout ${mine.toFixed(1)} ms (${((mine / theirs - 1) * 100).toFixed(0)} %), median of ${runs * 5} interleaved`);
}

for (const shape of hostileShapes(quick ? 1000 : 2000)) {
  const small = shape.build(shape.n);
  const large = shape.build(shape.n * 2);
  const fn = shape.kind === 'links' ? extractLinks : extractOtps;
  const a = time(() => fn(small), runs);
  const b = time(() => fn(large), runs);
  console.log(`${shape.name}: n=${shape.n} (${(small.html.length / 1024).toFixed(0)} KB) ${a.toFixed(1)} ms, 2n ${b.toFixed(1)} ms, ratio ${(b / a).toFixed(2)}`);
}
