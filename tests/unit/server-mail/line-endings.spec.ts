import { test, expect } from '@playwright/test';
import fc from 'fast-check';
import { normaliseLineEndings } from '../../../src/server/intake/line-endings.ts';

const run = (text: string) => {
  const { data, bareLineEndings } = normaliseLineEndings(Buffer.from(text, 'latin1'));
  return { text: Buffer.from(data).toString('latin1'), bare: bareLineEndings };
};

test('bare LF and lone CR become CRLF; CRLF stays', () => {
  expect(run('a\nb\rc\r\nd')).toEqual({ text: 'a\r\nb\r\nc\r\nd', bare: 2 });
  expect(run('x\n.\ny')).toEqual({ text: 'x\r\n.\r\ny', bare: 2 });
  expect(run('x\r.\r\ny')).toEqual({ text: 'x\r\n.\r\ny', bare: 1 });
  expect(run('\r\r\n\n')).toEqual({ text: '\r\n\r\n\r\n', bare: 2 });
});

test('input without bare line endings is returned as is', () => {
  const input = Buffer.from('a\r\nb\r\n');
  expect(normaliseLineEndings(input).data).toBe(input);
});

test('the output never has a bare CR or LF, and its non-line-ending bytes are the input\'s', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
      const out = Buffer.from(normaliseLineEndings(bytes).data).toString('latin1');
      expect(out).not.toMatch(/\r(?!\n)|(?<!\r)\n/);
      expect(out.replace(/\r\n/g, '')).toBe(Buffer.from(bytes).toString('latin1').replace(/\r\n|\r|\n/g, ''));
    }),
  );
});
