/**
 * The report's `.txt` attachment (and so the text Playwright prints under a
 * failure) shows an email's text as its reader sees it: the invisible
 * preheader filler that pushes the body out of a client's preview is dropped,
 * and nothing else changes.
 */
import { test, expect } from '@playwright/test';
import { readerText } from '../../../src/playwright/reader-text.ts';

const ZWNJ = '\u200c';
const CGJ = '\u034f'; // &#847;
const NBSP = '\u00a0';

const cases: Array<[string, string, string]> = [
  [
    'a preheader followed by zero-width non-joiners between non-breaking spaces (the usual filler)',
    `Your sign-in code is inside${`${NBSP}${ZWNJ}`.repeat(90)}\n\nHello Ada,\n\nYour code is 482913.`,
    'Your sign-in code is inside\n\nHello Ada,\n\nYour code is 482913.',
  ],
  [
    'a first line that is nothing but &#847; and &zwnj; filler (a text part converted from HTML) goes, with the blank lines it leaves',
    `${`${CGJ} ${ZWNJ} `.repeat(60)}\n\nReset your password\nOpen the link below.`,
    'Reset your password\nOpen the link below.',
  ],
  [
    'filler still written as entities in the text part',
    `Welcome aboard &zwnj;&nbsp;&zwnj;&nbsp;&#847;&#8204;&#x200C;&shy;\nConfirm your email`,
    'Welcome aboard\nConfirm your email',
  ],
  [
    'zero-width spaces, soft hyphens and a byte-order mark are dropped inside words too',
    '\ufeffpass\u00adword re\u200bset',
    'password reset',
  ],
  [
    'filler between two words leaves one space',
    `Hello${NBSP}${ZWNJ}${NBSP}${ZWNJ}${NBSP}${ZWNJ}there`,
    'Hello there',
  ],
  [
    'a lone joiner inside a word is writing, not filler: Persian ZWNJ and an emoji ZWJ sequence stay',
    `می${ZWNJ}خواهم 👩\u200d💻`,
    `می${ZWNJ}خواهم 👩\u200d💻`,
  ],
  [
    'text without filler comes back unchanged, indentation, blank lines and CRLF included',
    'Hello,\r\n\r\n    Code: 482913\r\n\r\n-- \r\nAcme',
    'Hello,\r\n\r\n    Code: 482913\r\n\r\n-- \r\nAcme',
  ],
  [
    'CRLF lines keep their ending after filler is dropped',
    `Preview text${ZWNJ}${ZWNJ}${ZWNJ}\r\nBody`,
    'Preview text\r\nBody',
  ],
];

for (const [name, input, expected] of cases) {
  test(`reader text: ${name}`, () => {
    expect(readerText(input)).toBe(expected);
  });
}
