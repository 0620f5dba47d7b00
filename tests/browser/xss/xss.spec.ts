import { test, expect } from '@playwright/test';
import { createSanitizer } from '../../../src/server/mail/sanitize.ts';
import { dompurifyVectors, owaspVectors, XSS_DIR, XSS_SKIP, type Vector } from './corpus.ts';
import { detect, executedVectors, executionCount, type Detection, type RenderMode } from './harness.ts';
import { printFigureTable } from '../../support/figures.ts';

const MODES: RenderMode[] = ['innerHTML', 'srcdoc'];

/** Images (and web fonts) over http(s) are what the policy keeps; any other request is a failure. */
const ALLOWED_REQUEST_TYPES = new Set(['image', 'font']);

async function sanitizeAll(vectors: Vector[]): Promise<Vector[]> {
  const sanitizer = createSanitizer();
  try {
    const resolveCid = (cid: string) => `https://files.inboxkit.test/cid/${encodeURIComponent(cid)}`;
    return await Promise.all(vectors.map(async (vector) => ({ key: vector.key, html: await sanitizer.sanitize(vector.html, { resolveCid }) })));
  } finally {
    sanitizer.close();
  }
}

function row(label: string, detection: Detection, vectors: number) {
  const outside = detection.requests.filter((request) => !ALLOWED_REQUEST_TYPES.has(request.type)).length;
  return {
    run: label,
    vectors,
    rendered: detection.rendered,
    'vectors that ran': executedVectors(detection).size,
    'hooked calls': detection.hookCalls.length,
    'native dialogs': detection.dialogs.length,
    'page scripts': detection.scripts.length,
    'blocked requests (non-image)': outside,
    'blocked image requests': detection.requests.length - outside,
    popups: detection.popups.length,
  };
}

test.describe('the detector', () => {
  const canaries: { html: string; modes: RenderMode[]; expects: ('hook' | 'script' | 'request')[] }[] = [
    { html: '<p>harmless</p>', modes: MODES, expects: [] },
    { html: '<script>alert(1)</script>', modes: ['srcdoc'], expects: ['hook', 'script'] },
    { html: '<img src=x onerror=alert(1)>', modes: MODES, expects: ['hook', 'script'] },
    { html: '<p onmouseover="confirm(1)">hover me</p>', modes: MODES, expects: ['hook', 'script'] },
    { html: '<input autofocus onfocus="prompt(1)">', modes: MODES, expects: ['hook', 'script'] },
    { html: '<a href="javascript:print()">click</a>', modes: MODES, expects: ['hook'] },
    { html: '<form action="javascript:alert(1)"><button>go</button></form>', modes: MODES, expects: ['hook'] },
    { html: '<img src=x onerror="window.__xss()">', modes: MODES, expects: ['hook', 'script'] },
    { html: '<img src=x onerror="document.title = 1">', modes: MODES, expects: ['script'] },
    { html: '<script src="https://evil.inboxkit.test/x.js"></script>', modes: ['srcdoc'], expects: ['request'] },
    { html: '<link rel="stylesheet" href="https://evil.inboxkit.test/x.css">', modes: MODES, expects: ['request'] },
  ];

  for (const mode of MODES) {
    test(`catches each way a vector can run through ${mode}, and attributes it to its vector`, async ({ browser }) => {
      const selected = canaries.filter((canary) => canary.modes.includes(mode));
      const vectors = selected.map((canary, index) => ({ key: `canary#${index}`, html: canary.html }));
      const detection = await detect(browser, vectors, mode);
      const seen = (key: string) =>
        [
          ...detection.hookCalls.filter((f) => f.vector === key).map(() => 'hook'),
          ...detection.dialogs.filter((f) => f.vector === key).map(() => 'dialog'),
          ...detection.scripts.filter((f) => f.vector === key).map(() => 'script'),
          ...detection.requests.filter((f) => f.vector === key).map(() => 'request'),
        ].filter((kind, index, all) => all.indexOf(kind) === index);
      for (const [index, canary] of selected.entries()) {
        expect(seen(`canary#${index}`).sort(), canary.html).toEqual([...canary.expects].sort());
      }
      expect(detection.dialogs, 'every dialog went through a hook').toEqual([]);
      expect(detection.errors).toEqual([]);
    });
  }
});

/**
 * How many raw vectors must run for the control to count: about 80% of what
 * Chromium runs today (DOMPurify: 59 through innerHTML, 74 through srcdoc; OWASP,
 * whose vectors are mostly for IE and old Firefox: 23 and 33). A drop below means
 * the detector went blind, not that the browser got safer.
 */
const corpora: { name: string; load: () => Promise<Vector[]>; minimumRawVectorsThatRun: Record<RenderMode, number> }[] = [
  { name: "DOMPurify's fixtures", load: dompurifyVectors, minimumRawVectorsThatRun: { innerHTML: 48, srcdoc: 60 } },
  { name: 'the OWASP cheat sheet', load: owaspVectors, minimumRawVectorsThatRun: { innerHTML: 18, srcdoc: 26 } },
];

for (const corpus of corpora) {
  for (const mode of MODES) {
    test(`no vector of ${corpus.name} runs once sanitized, rendered through ${mode}, while the raw vectors do`, { tag: '@heavy' }, async ({ browser }) => {
      test.skip(XSS_DIR === null, XSS_SKIP);
      test.setTimeout(120_000);
      const vectors = await corpus.load();
      const sanitized = await sanitizeAll(vectors);

      const raw = await detect(browser, vectors, mode);
      const clean = await detect(browser, sanitized, mode);

      printFigureTable(`\n${corpus.name} through ${mode}`, [row('raw (control)', raw, vectors.length), row('sanitized', clean, sanitized.length)]);

      // The control proves the detector fires on this corpus in this mode.
      expect(executedVectors(raw).size).toBeGreaterThanOrEqual(corpus.minimumRawVectorsThatRun[mode]);
      expect(executionCount(raw)).toBeGreaterThan(0);

      // Sanitized: every vector rendered, nothing runs, nothing but images leaves the page, nothing opens.
      expect(clean.rendered, 'sanitized vectors rendered').toBe(sanitized.length);
      expect(clean.hookCalls, 'hooked alert/confirm/prompt/print/__xss calls').toEqual([]);
      expect(clean.dialogs, 'native dialogs').toEqual([]);
      expect(clean.scripts, 'scripts compiled from page content').toEqual([]);
      expect(clean.popups, 'opened windows').toEqual([]);
      expect(clean.requests.filter((request) => !ALLOWED_REQUEST_TYPES.has(request.type) || !/^https?:/.test(request.url)), 'non-image requests').toEqual([]);
      expect(clean.errors, 'harness errors (a vector navigating the page away)').toEqual([]);
    });
  }
}
