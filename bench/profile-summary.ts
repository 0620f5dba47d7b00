/**
 * Summarises a V8 `.cpuprofile` (from `npm run bench -- --cpu-prof`): self time
 * by package or source folder, and the hottest functions.
 *
 * Usage: `node bench/profile-summary.ts <file.cpuprofile> [top]`
 *
 * @packageDocumentation
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) {
  console.error('usage: node bench/profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const top = Number(process.argv[3]?.startsWith("--") ? 25 : (process.argv[3] ?? 25));
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

/** `node_modules/<pkg>`, `src/<area>/<file>`, `node:<module>` or the special V8 frames. */
function area(url: string, name: string): string {
  if (!url) return `(${name || 'anonymous'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  const src = /\/(src\/.*)$/.exec(url);
  if (src) return src[1] as string;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '');
}

const total = [...self.values()].reduce((a, b) => a + b, 0);
const areas = new Map<string, number>();
const functions = new Map<string, number>();
for (const [id, us] of self) {
  const node = byId.get(id);
  if (!node) continue;
  const { url, functionName, lineNumber } = node.callFrame;
  const a = area(url, functionName);
  areas.set(a, (areas.get(a) ?? 0) + us);
  const f = `${functionName || '(anonymous)'} ${a}:${lineNumber + 1}`;
  functions.set(f, (functions.get(f) ?? 0) + us);
}
const show = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
  }
};
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled`);
show('Self time by package / source file', areas);
show('Hottest functions (self time)', functions);

// `--callers NAME`: where the self time of functions called NAME comes from (3 frames up).
const callersOf = process.argv.indexOf("--callers");
const depth = Number(process.argv[process.argv.indexOf("--depth") + 1]) || 4;
if (callersOf > 0) {
  const name = process.argv[callersOf + 1] ?? '';
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stacks = new Map<string, number>();
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName !== name) continue;
    const frames: string[] = [];
    let p = parent.get(id);
    while (p !== undefined && frames.length < depth) {
      const f = byId.get(p)?.callFrame;
      if (f) frames.push(`${f.functionName || '(anon)'}@${area(f.url, f.functionName)}:${f.lineNumber + 1}`);
      p = parent.get(p);
    }
    const key = frames.join(' < ');
    stacks.set(key, (stacks.get(key) ?? 0) + us);
  }
  show(`Callers of ${name}`, stacks);
}

// `--inclusive`: total time (self + callees) of the hottest source functions of the project and of packages' entry points.
if (process.argv.includes('--inclusive')) {
  const inclusive = new Map<string, number>();
  const totalOf = new Map<number, number>();
  const visit = (id: number): number => {
    const cached = totalOf.get(id);
    if (cached !== undefined) return cached;
    const node = byId.get(id);
    let sum = self.get(id) ?? 0;
    for (const c of node?.children ?? []) sum += visit(c);
    totalOf.set(id, sum);
    return sum;
  };
  for (const n of profile.nodes) visit(n.id);
  // A function counted once per stack: only where it is not already below itself.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  for (const n of profile.nodes) {
    const { url, functionName, lineNumber } = n.callFrame;
    if (!url.includes('/src/') && !url.includes('bench-build') && !url.includes('/dist/')) continue;
    const key = `${functionName || '(anonymous)'} ${area(url, functionName)}:${lineNumber + 1}`;
    let p = parent.get(n.id);
    let recursive = false;
    while (p !== undefined) {
      const f = byId.get(p)?.callFrame;
      if (f && f.url === url && f.functionName === functionName && f.lineNumber === lineNumber) recursive = true;
      p = parent.get(p);
    }
    if (!recursive) inclusive.set(key, (inclusive.get(key) ?? 0) + (totalOf.get(n.id) ?? 0));
  }
  show('Inclusive time of project functions (self + callees)', inclusive);
}
