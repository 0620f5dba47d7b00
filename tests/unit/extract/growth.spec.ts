import { test, expect } from '@playwright/test';
import { EXTRACTION_BOUNDS, extractLinks, extractOtp, extractOtps, findLink, LinkNotFoundError, OtpNotFoundError, type ExtractInput } from '../../../src/extract/index.ts';
import { hostileShapes, ordinaryEmail } from '../../support/extraction-shapes.ts';

/**
 * Issue 36: link and code extraction are linear in the size of the mail on
 * every hostile shape (thousands of links, thousands of code-shaped strings,
 * deep nesting), and what they leave unread past a bound is named in the
 * result. The growth is measured, never an absolute time: the CPU time at n
 * and at 2n, interleaved, the least of several samples (a loaded machine only
 * adds time). Doubling the input may at most about double the work (a quadratic
 * step would make it four times); the ratio allowed is 3.
 */

function cpuMs(fn: () => unknown): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * The CPU time of `fn` on `small` and on `large`: each sample repeats the call
 * enough times to take at least 100 ms on `small`, samples of the two sizes
 * interleaved, and the least of them taken (noise only ever adds time).
 */
function growth(fn: (input: ExtractInput) => unknown, small: ExtractInput, large: ExtractInput, runs = 9): { small: number; large: number; ratio: number } {
  fn(small);
  fn(large);
  const once = Math.max(cpuMs(() => fn(small)), 0.5);
  const reps = Math.max(1, Math.ceil(100 / once));
  const repeat = (input: ExtractInput) => () => { for (let i = 0; i < reps; i++) fn(input); };
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(cpuMs(repeat(small)));
    b.push(cpuMs(repeat(large)));
  }
  const s = Math.max(Math.min(...a), 1) / reps;
  const l = Math.min(...b) / reps;
  return { small: s, large: l, ratio: l / s };
}

test.describe('extraction grows linearly with the mail', () => {
  // Below the bounds (400 and 800 links or candidates), so the reading itself is measured, not the bound.
  for (const shape of hostileShapes(400)) {
    test(`${shape.kind === 'links' ? 'extractLinks' : 'extractOtps'} on ${shape.name}: doubling the input at most about doubles the time`, () => {
      test.setTimeout(120_000);
      const fn = shape.kind === 'links' ? (i: ExtractInput) => extractLinks(i) : (i: ExtractInput) => extractOtps(i);
      // A busy machine can slow one sample; a quadratic step shows in every attempt, so up to three are made.
      let result = growth(fn, shape.build(shape.n), shape.build(shape.n * 2));
      for (let attempt = 1; attempt < 3 && result.ratio >= 3; attempt++) result = growth(fn, shape.build(shape.n), shape.build(shape.n * 2));
      expect(result.ratio, `${shape.name}: ${result.small.toFixed(1)} ms at n=${shape.n}, ${result.large.toFixed(1)} ms at 2n`).toBeLessThan(3);
    });
  }

  test('an ordinary 100 KB email grows linearly too (100 KB against 200 KB)', () => {
    test.setTimeout(120_000);
    const both = (i: ExtractInput) => { extractLinks(i); extractOtps(i); };
    let result = growth(both, ordinaryEmail(100 * 1024), ordinaryEmail(200 * 1024), 5);
    for (let attempt = 1; attempt < 3 && result.ratio >= 3; attempt++) result = growth(both, ordinaryEmail(100 * 1024), ordinaryEmail(200 * 1024), 5);
    expect(result.ratio, `${result.small.toFixed(1)} ms at 100 KB, ${result.large.toFixed(1)} ms at 200 KB`).toBeLessThan(3);
  });
});

test.describe('bounds on what is read are named in the result', () => {
  test('nesting of 300 levels is still parsed as a browser does, and read whole but for styling past 256 levels', () => {
    const deep = `${'<div>'.repeat(300)}<p>Your code is <b>604917</b></p>${'</div>'.repeat(300)}`;
    const codes = extractOtps(deep);
    expect(codes[0]?.code).toBe('604917');
    expect(codes.bounds[0]?.message).toMatch(/^elements nested deeper than 256 levels \(the HTML body reaches 30\d\) were read without their own styling and hiding$/);
  });

  test('8,000 links in one block are read up to the link bound, and the result says so', () => {
    test.setTimeout(120_000);
    const [shape] = hostileShapes(8_000);
    const input = shape?.build(8_000) as ExtractInput;
    const links = extractLinks(input);
    expect(links).toHaveLength(EXTRACTION_BOUNDS.links);
    expect(links.bounds.map((b) => b.bound)).toEqual(['links']);
    expect(links.bounds[0]?.message).toBe(`only the first ${EXTRACTION_BOUNDS.links} links of the HTML body were read (it has 8000 anchors)`);
    expect(() => findLink(input, 'Link 7999')).toThrow(LinkNotFoundError);
    expect(() => findLink(input, 'Link 7999')).toThrow(/Not everything was read: only the first 1000 links of the HTML body were read/);
  });

  test('an ordinary email reads whole: no bound applies', () => {
    const email = ordinaryEmail(100 * 1024);
    expect(extractLinks(email).bounds).toEqual([]);
    expect(extractOtps(email).bounds).toEqual([]);
    expect(extractOtp(email)).toBe('482913');
  });

  test('10,000 nested elements do not overflow the stack nor slow the parser; styling and hiding past the depth bound are not read, and the result says so', () => {
    test.setTimeout(120_000);
    const deep = `${'<div>'.repeat(10_000)}<p>Your code is <b>604917</b></p><a href="https://deep.example/verify">Verify</a>${'</div>'.repeat(10_000)}`;
    const codes = extractOtps(deep);
    expect(codes[0]?.code).toBe('604917');
    expect(codes.bounds.map((b) => b.bound)).toEqual(['depth']);
    expect(codes.bounds[0]?.message).toBe('the HTML body nests its tags 10001 levels deep, past 512: it was parsed with a simpler parser (no implied tags), and elements deeper than 256 levels were read without their own styling and hiding');
    const links = extractLinks(deep);
    expect(links.map((l) => l.href)).toEqual(['https://deep.example/verify']);
    expect(links.bounds.map((b) => b.bound)).toEqual(['depth']);
  });

  test('past the candidate bound the rest of the body is not considered, and the error of otp() says so', () => {
    test.setTimeout(120_000);
    const many = `<p>${Array.from({ length: 3_000 }, (_, i) => `Order ${100000 + i}`).join('</p><p>')}</p><p>Your code is <b>604917</b></p>`;
    const codes = extractOtps(many);
    expect(codes.map((c) => c.code)).not.toContain('604917');
    expect(codes.bounds.map((b) => b.bound)).toEqual(['candidates']);
    let error: unknown;
    try { extractOtp(many); } catch (e) { error = e; }
    expect(error).toBeInstanceOf(OtpNotFoundError);
    expect((error as OtpNotFoundError).message).toMatch(/Not everything was read: only the first 1000 code-shaped strings of the HTML body were considered/);
    expect((error as OtpNotFoundError).bounds[0]?.bound).toBe('candidates');
  });
});
