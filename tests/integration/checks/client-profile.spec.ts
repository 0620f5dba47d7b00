/**
 * Client profiles: each removes what the caniemail data says the client does
 * not support, proven on one fixture per rule family against a client that
 * lacks the feature and one that has it (both chosen from the data itself).
 */
import * as cheerio from 'cheerio';
import { test, expect } from '@playwright/test';
import { applyClientProfile } from '../../../src/client/index.ts';
import { clientFeatureSupport } from '../../../src/checks/compatibility.ts';

/** Every `family.platform` the data knows. */
const CLIENTS = [
  'gmail.desktop-webmail', 'gmail.ios', 'gmail.android', 'gmail.mobile-webmail', 'outlook.windows', 'outlook.macos', 'outlook.outlook-com', 'outlook.ios', 'outlook.android',
  'apple-mail.macos', 'apple-mail.ios', 'yahoo.desktop-webmail', 'yahoo.ios', 'yahoo.android', 'thunderbird.macos', 'samsung-email.android', 'protonmail.desktop-webmail', 'fastmail.desktop-webmail',
];

/** A client whose latest tested version has `support` for the feature, and keeps `<style>` when the fixture needs it to show the feature. */
async function clientWith(slug: string, support: 'yes' | 'no', needsStyle: boolean): Promise<string> {
  for (const client of CLIENTS) {
    const data = await clientFeatureSupport(client).catch(() => null);
    const of = (s: string) => data?.features.find((f) => f.slug === s)?.support;
    if (of(slug) === support && (!needsStyle || of('html-style') !== 'no')) return client;
  }
  throw new Error(`no client in the list has ${support} for ${slug}`);
}

/** Rule families: a fixture, the feature the data decides it by, and what survives in the HTML when the client has it. */
const FAMILIES: Array<{ family: string; slug: string; html: string; present: (html: string) => boolean }> = [
  { family: '<style> element', slug: 'html-style', html: '<html><head><style>p{color:red}</style></head><body><p>x</p></body></html>', present: (h) => cheerio.load(h)('style').length === 1 },
  { family: 'CSS property', slug: 'css-position', html: '<div style="position:absolute;color:red">x</div>', present: (h) => /position:\s*absolute/.test(h) },
  { family: 'CSS value', slug: 'css-display-flex', html: '<div style="display:flex;color:red">x</div>', present: (h) => /display:\s*flex/.test(h) },
  { family: 'at-rule', slug: 'css-at-media', html: '<html><head><style>@media (max-width:600px){p{color:red}} b{color:blue}</style></head><body><p>x</p></body></html>', present: (h) => h.includes('@media') },
  { family: 'background image', slug: 'css-background-image', html: '<div style="background-image:url(https://cdn.example/bg.png);color:red">x</div>', present: (h) => h.includes('background-image') },
  { family: 'embedded SVG', slug: 'html-svg', html: '<p>x<svg width="10" height="10"><rect width="10" height="10"/></svg></p>', present: (h) => cheerio.load(h)('svg').length === 1 },
  { family: 'image format', slug: 'image-webp', html: '<p><img src="https://cdn.example/a.webp" alt="a"></p>', present: (h) => cheerio.load(h)('img').length === 1 },
  { family: 'pseudo-class', slug: 'css-pseudo-class-hover', html: '<html><head><style>a:hover{color:red} a{color:blue}</style></head><body><a href="#">x</a></body></html>', present: (h) => h.includes(':hover') },
];

for (const { family, slug, html, present } of FAMILIES) {
  test(`a ${family} is removed for a client whose data says it lacks ${slug}, kept for one that has it, and listed`, async () => {
    const needsStyle = slug !== 'html-style' && html.includes('<style>');
    const without = await clientWith(slug, 'no', needsStyle);
    const withIt = await clientWith(slug, 'yes', needsStyle);
    const removed = await applyClientProfile(html, without);
    expect(present(removed.html), `${without}: ${removed.html}`).toBe(false);
    expect(removed.removed.map((r) => r.slug)).toContain(slug);
    expect(removed.removed.find((r) => r.slug === slug)).toMatchObject({ count: expect.any(Number), url: expect.stringContaining('caniemail.com') });
    const kept = await applyClientProfile(html, withIt);
    expect(present(kept.html), `${withIt}: ${kept.html}`).toBe(true);
    expect(kept.removed.map((r) => r.slug)).not.toContain(slug);
  });
}

test('dark mode follows the data: prefers-color-scheme where the client supports it, forced otherwise', async () => {
  for (const client of ['apple-mail.macos', 'gmail.desktop-webmail']) {
    const support = (await clientFeatureSupport(client)).features.find((f) => f.slug === 'css-at-media-prefers-color-scheme')?.support;
    const { darkMode } = await applyClientProfile('<p>x</p>', client);
    expect(darkMode, client).toBe(support === 'yes' || support === 'partial' ? 'media' : 'forced');
  }
});
