import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { previewOf } from '../../../src/server/storage/contract/message-rows.ts';

test('a preview collapses every run of whitespace, Unicode spaces and line breaks included, to one space and trims both ends', () => {
  expect(previewOf('\uFEFF  Hi\u00A0\u00A0Alice,\r\n\r\n\tyour\u2028code\u3000is 42.  \n')).toBe('Hi Alice, your code is 42.');
  expect(previewOf(' \n\t ')).toBe('');
  expect(previewOf(null)).toBe('');
});

test('a preview keeps the first 200 characters, counts an emoji as one and never splits its surrogate pair', () => {
  expect(previewOf('😀'.repeat(250))).toBe('😀'.repeat(200));
  expect(previewOf(`${'x'.repeat(199)}😀tail`)).toBe(`${'x'.repeat(199)}😀`);
  // A whitespace run at the cut: the space is the 200th character, or the 201st and not kept.
  expect(previewOf(`${'x'.repeat(199)}   more`)).toBe(`${'x'.repeat(199)} `);
  expect(previewOf(`${'x'.repeat(200)}   more`)).toBe('x'.repeat(200));
});

test('a preview is the body with whitespace runs collapsed and trimmed, cut after 200 code points, whatever the body', () => {
  const definition = (body: string) => Array.from(body.replace(/\s+/g, ' ').trim()).slice(0, 200).join('');
  const piece = fc.constantFrom(' ', '\n', '\t', '\u00A0', '\u2028', '\u3000', '\uFEFF', 'a', 'é', '😀', '\uD83D', '\uDE00', '\u0000', 'word ',
    '\u000B', '\u000C', '\u0085', '\u1680', '\u180E', '\u2000', '\u200A', '\u200B', '\u2029', '\u202F', '\u205F', '\u00AD');
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 400 }), (pieces) => {
      const body = pieces.join('');
      expect(previewOf(body)).toBe(definition(body));
    }),
    { numRuns: 2000 },
  );
});
