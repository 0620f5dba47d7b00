/**
 * What sanitizing costs (parse5 and css-tree): the first call (JIT still cold)
 * and then each typical transactional email of 2 to 100 KB.
 *
 * Run with `npx node bench/sanitize.ts` (optionally `-- --iterations 200`).
 * Prints a table; numbers are for the machine it runs on.
 */
import { performance } from 'node:perf_hooks';

const iterations = Number(process.argv[process.argv.indexOf('--iterations') + 1]) || 100;

/** A transactional email as builders (MJML, Stripo, hand-made tables) produce them. */
function transactionalEmail(targetBytes: number): string {
  const head = `<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Confirm your address</title>
<style type="text/css">
  body { margin: 0; padding: 0; background: #f4f4f4; }
  .wrapper { width: 100%; table-layout: fixed; }
  .button a { color: #ffffff !important; text-decoration: none; }
  @media only screen and (max-width: 600px) { .container { width: 100% !important; } .stack { display: block !important; width: 100% !important; } }
</style></head>
<body bgcolor="#f4f4f4" style="margin:0;padding:0;font-family:Helvetica,Arial,sans-serif">
<!--[if mso]><table role="presentation" width="600"><tr><td><![endif]-->
<table class="wrapper" role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#f4f4f4"><tr><td align="center">
<table class="container" width="600" cellpadding="0" cellspacing="0" border="0" bgcolor="#ffffff" style="border-radius:6px">
<tr><td align="center" style="padding:24px"><img src="cid:logo@mail.example.test" alt="Example" width="120" height="40" style="display:block;border:0"></td></tr>
<tr><td style="padding:0 32px"><h1 style="font-size:22px;color:#222;margin:0 0 16px">Confirm your address</h1>
<p style="font-size:15px;line-height:22px;color:#444">Hi Alice, thanks for signing up. Your code is <strong style="font-size:20px;letter-spacing:4px">482913</strong>.</p>
<table class="button" cellpadding="0" cellspacing="0" border="0"><tr><td bgcolor="#1a73e8" style="border-radius:4px;padding:12px 24px">
<a href="https://app.example.test/verify?token=eyJhbGciOiJIUzI1NiJ9.abc%2Fdef%3D&amp;user=42&amp;utm_source=email" style="color:#fff;font-weight:bold">Confirm</a></td></tr></table>
</td></tr>`;
  const row = (i: number) => `<tr><td class="stack" valign="top" width="50%" style="padding:12px 32px;border-top:1px solid #eeeeee">
<img src="https://cdn.example.test/products/${i}.png" alt="Product ${i}" width="80" height="80" style="display:block;border:0;outline:none">
<p style="margin:8px 0;font-size:14px;color:#333">Item ${i}: a line of marketing text about the product, with <a href="https://shop.example.test/p/${i}?ref=mail&amp;pos=${i}" style="color:#1a73e8">a link</a> and <em>some emphasis</em>.</p>
<font face="Arial" size="2" color="#888888">Ships in 2&ndash;3 days &middot; &euro;${(i * 7.5).toFixed(2)}</font></td></tr>\n`;
  const foot = `<tr><td align="center" style="padding:24px;font-size:12px;color:#999">You received this email because you signed up at example.test.<br>
<a href="https://example.test/unsubscribe?u=42&amp;sig=a1b2c3" style="color:#999">Unsubscribe</a> &middot; <a href="mailto:help@example.test">Help</a></td></tr>
</table></td></tr></table><!--[if mso]></td></tr></table><![endif]--></body></html>`;
  let rows = '';
  for (let i = 1; head.length + rows.length + foot.length < targetBytes; i++) rows += row(i);
  return head + rows + foot;
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const mean = samples.reduce((sum, x) => sum + x, 0) / samples.length;
  return { mean, p50: at(0.5), p95: at(0.95), max: sorted[sorted.length - 1]! };
}

const importStart = performance.now();
const { sanitizeHtml } = await import('../src/server/mail/sanitize.ts');
const importMs = performance.now() - importStart;

const options = { resolveCid: (cid: string) => `/messages/msg_1/attachments/${encodeURIComponent(cid)}` };

const firstStart = performance.now();
sanitizeHtml('<p>warm-up</p>', options);
const firstMs = performance.now() - firstStart;

const rows: Record<string, string | number>[] = [
  { case: 'import sanitize.ts (parse5, css-tree)', 'size KB': '-', runs: 1, 'mean ms': importMs.toFixed(2), 'p50 ms': '-', 'p95 ms': '-', 'max ms': '-', 'MB/s': '-' },
  { case: 'first sanitizeHtml() (cold)', 'size KB': '-', runs: 1, 'mean ms': firstMs.toFixed(1), 'p50 ms': '-', 'p95 ms': '-', 'max ms': '-', 'MB/s': '-' },
];

for (const kb of [2, 10, 20, 30, 100]) {
  const html = transactionalEmail(kb * 1024);
  for (let i = 0; i < 5; i++) sanitizeHtml(html, options); // JIT warm-up
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    sanitizeHtml(html, options);
    samples.push(performance.now() - start);
  }
  const s = stats(samples);
  rows.push({
    case: `transactional email`,
    'size KB': (html.length / 1024).toFixed(1),
    runs: iterations,
    'mean ms': s.mean.toFixed(2),
    'p50 ms': s.p50.toFixed(2),
    'p95 ms': s.p95.toFixed(2),
    'max ms': s.max.toFixed(2),
    'MB/s': (html.length / 1024 / 1024 / (s.mean / 1000)).toFixed(2),
  });
}

console.log(`inboxkit sanitizer (parse5 allowlist walk, css-tree), Node ${process.version}, ${iterations} runs per size`);
console.table(rows);
