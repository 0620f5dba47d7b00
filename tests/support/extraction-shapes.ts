/**
 * Emails for measuring extraction: one ordinary email of a given size, and
 * the hostile shapes of issue 36 (thousands of links, thousands of
 * code-shaped strings, deep nesting), each built at any size n. Deterministic:
 * the same n gives the same email.
 */

/** An email's bodies, as extraction reads them. */
export interface Bodies { html: string; text: string | null; subject: string }

/** A hostile shape: what it stresses and how to build it with n repetitions. */
export interface Shape { name: string; kind: 'links' | 'otps'; n: number; build(n: number): Bodies }

const WORDS = 'account team update order please your the and with for this from message service settings privacy review security details support notice today weekly report project share invite access profile billing plan change'.split(' ');

/** A deterministic pseudo-random sequence (a linear congruential generator). */
function sequence(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

function sentence(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(next() * WORDS.length)] as string);
  const s = out.join(' ');
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
}

/**
 * An ordinary HTML email of about `bytes` bytes: a table layout with a
 * heading, a one-time code in a styled cell, a button, paragraphs with a few
 * links each, an image, and a footer with an address and an unsubscribe link.
 */
export function ordinaryEmail(bytes: number): Bodies {
  const next = sequence(42);
  const head = `<!doctype html><html><head><style>body{margin:0}.btn{color:#fff}</style></head><body style="background:#f4f4f4">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">
<table role="presentation" width="600" style="background:#ffffff;font-family:Helvetica,Arial,sans-serif;font-size:16px">
<tr><td style="padding:24px"><h1 style="font-size:22px">Your Acme weekly summary</h1>
<p>Use this verification code to sign in:</p></td></tr>
<tr><td style="font-size:32px;font-weight:bold;letter-spacing:6px;text-align:center">482913</td></tr>
<tr><td style="padding:12px"><a class="btn" href="https://app.acme.example/session/confirm?t=Qm9vayB0b2tlbiA5&amp;u=77" style="background:#0a66c2;padding:10px 18px;display:inline-block">Confirm sign-in</a></td></tr>`;
  const foot = `<tr><td style="font-size:12px;color:#777;padding:24px">Acme Inc., 100 Main Street, Springfield, USA. © 2026 Acme.
<a href="https://app.acme.example/unsubscribe?u=77">Unsubscribe</a> · <a href="https://app.acme.example/privacy">Privacy</a></td></tr>
</table></td></tr></table></body></html>`;
  const rows: string[] = [];
  let size = head.length + foot.length;
  for (let i = 0; size < bytes; i++) {
    const row = `<tr><td style="padding:8px 24px;line-height:1.5"><h3 style="font-size:17px;margin:0">${sentence(next, 4)}</h3>
<p style="margin:6px 0">${sentence(next, 14)} ${sentence(next, 10)} <a href="https://news.acme.example/story/${i}?utm_source=weekly&amp;utm_medium=email">${sentence(next, 3)}</a> ${sentence(next, 12)}</p>
<p style="margin:6px 0;color:#555">${sentence(next, 18)} Posted ${1 + (i % 28)} March 2026, ${i % 12}:30 PM.</p>
${i % 5 === 0 ? `<img src="https://cdn.acme.example/i/${i}.png" alt="Chart ${i}" width="560">` : ''}</td></tr>`;
    rows.push(row);
    size += row.length;
  }
  return { html: head + rows.join('\n') + foot, text: null, subject: 'Your Acme weekly summary' };
}

/** The hostile shapes, each with its base size n (measured at n and 2n). */
export function hostileShapes(n: number): Shape[] {
  return [
    {
      name: 'links in one block', kind: 'links', n,
      build: (k) => ({ html: `<div>${Array.from({ length: k }, (_, i) => `<a href="https://t.example/c/${i}?u=${i}">Link ${i}</a> `).join('')}</div>`, text: null, subject: '' }),
    },
    {
      name: 'links in paragraphs of one cell', kind: 'links', n,
      build: (k) => ({ html: `<table><tr><td>${Array.from({ length: k }, (_, i) => `<p>Item ${i}: <a href="https://t.example/p/${i}">open ${i}</a> and more text</p>`).join('')}</td></tr></table>`, text: null, subject: '' }),
    },
    {
      name: 'nested divs each with a link', kind: 'links', n,
      build: (k) => ({ html: `${Array.from({ length: k }, (_, i) => `<div style="padding:0"><a href="https://t.example/n/${i}">n${i}</a> text`).join('')}${'</div>'.repeat(k)}`, text: null, subject: '' }),
    },
    {
      name: 'URLs on one line of a text body', kind: 'links', n,
      build: (k) => ({ html: '', text: Array.from({ length: k }, (_, i) => `see https://t.example/x/${i}?a=1&b=2)`).join(' '), subject: '' }),
    },
    {
      name: 'codes in one paragraph', kind: 'otps', n,
      build: (k) => ({ html: `<p>${Array.from({ length: k }, (_, i) => `Your code is ${100000 + i}.`).join(' ')}</p>`, text: null, subject: '' }),
    },
    {
      name: 'codes in table cells', kind: 'otps', n,
      build: (k) => ({ html: `<table>${Array.from({ length: k }, (_, i) => `<tr><td>Code</td><td><b>${200000 + i}</b></td></tr>`).join('')}</table>`, text: null, subject: '' }),
    },
    {
      name: 'letter and mixed-case tokens near code words', kind: 'otps', n,
      build: (k) => ({ html: `<div>${Array.from({ length: k }, (_, i) => `<p>Your login code: <b>${letters(i)}</b> or code ${letters(i + 7).toLowerCase()}${i % 10}Q</p>`).join('')}</div>`, text: null, subject: '' }),
    },
    {
      name: 'nested divs with codes', kind: 'otps', n,
      build: (k) => ({ html: `${Array.from({ length: k }, (_, i) => `<div style="font-size:14px">code ${300000 + i}`).join('')}${'</div>'.repeat(k)}`, text: null, subject: '' }),
    },
    {
      name: 'code-shaped numbers in a text body', kind: 'otps', n,
      build: (k) => ({ html: '', text: Array.from({ length: k }, (_, i) => `Order ${400000 + i} code ${500000 + i} at 12:${String(i % 60).padStart(2, '0')}`).join('\n'), subject: '' }),
    },
  ];
}

function letters(i: number): string {
  const alphabet = 'BCDFGHJKLMNPQRSTVWXZ';
  let out = '';
  let x = i + 1;
  for (let j = 0; j < 8; j++) { out += alphabet[x % alphabet.length]; x = Math.floor(x / alphabet.length) + j * 7 + 3; }
  return out;
}
