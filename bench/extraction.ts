/**
 * How long link and code extraction take, on one ordinary 100 KB email and on
 * the hostile shapes of issue 36 (thousands of links, thousands of code-shaped
 * numbers, deep nesting) at n and 2n. Bounded: each shape runs a few times at
 * two sizes, in this process, with no network.
 *
 * Run: `node bench/extraction.ts` (add `--quick` for fewer repetitions).
 *
 * @packageDocumentation
 */
import { performance } from 'node:perf_hooks';
import { extractLinks, extractOtps } from '../src/extract/index.ts';
import { hostileShapes, ordinaryEmail } from '../tests/support/extraction-shapes.ts';

const quick = process.argv.includes('--quick');
const runs = quick ? 3 : 7;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function time(fn: () => unknown, times: number): number {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const ordinary = ordinaryEmail(100 * 1024);
time(() => { extractLinks(ordinary); extractOtps(ordinary); }, 3);
const links = time(() => extractLinks(ordinary), runs * 3);
const otps = time(() => extractOtps(ordinary), runs * 3);
console.log(`ordinary email ${(ordinary.html.length / 1024).toFixed(0)} KB: extractLinks ${links.toFixed(1)} ms, extractOtps ${otps.toFixed(1)} ms, both ${(links + otps).toFixed(1)} ms (median of ${runs * 3})`);

for (const shape of hostileShapes(quick ? 1000 : 2000)) {
  const small = shape.build(shape.n);
  const large = shape.build(shape.n * 2);
  const fn = shape.kind === 'links' ? extractLinks : extractOtps;
  const a = time(() => fn(small), runs);
  const b = time(() => fn(large), runs);
  console.log(`${shape.name}: n=${shape.n} (${(small.html.length / 1024).toFixed(0)} KB) ${a.toFixed(1)} ms, 2n ${b.toFixed(1)} ms, ratio ${(b / a).toFixed(2)}`);
}
