import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { prepareMessage } from '../../../src/server/mail/prepare.ts';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/eml/${name}`, import.meta.url));

test('a prepared message carries its sanitized HTML, cid: images turned into data: URLs of its own inline parts', async () => {
  const { message, sanitizedHtml, fallbackReason } = await prepareMessage(fixture('inline-image.eml'), { envelopeFrom: 'robot@app.example' });
  expect(fallbackReason).toBeNull();
  expect(message.subject).toBe('Inline logo');
  const logo = message.attachments.find((attachment) => attachment.contentId === 'logo@app.example');
  expect(logo).toBeDefined();
  const dataUrl = `data:image/png;base64,${Buffer.from(logo!.content).toString('base64')}`;
  expect(sanitizedHtml).toBe(`<p>Logo: <img src="${dataUrl}" alt="logo"></p><p>Missing: <img alt="missing"></p>`);
});

test('a prepared message without an HTML body has no sanitized HTML, and keeps its text', async () => {
  const { message, sanitizedHtml } = await prepareMessage(fixture('text-only.eml'), { envelopeFrom: '' });
  expect(sanitizedHtml).toBeNull();
  expect(message.rawHtml).toBeNull();
  expect(message.text).not.toBe('');
});

test('a prepared HTML-only message has its text derived from the HTML and its script removed', async () => {
  const { message, sanitizedHtml } = await prepareMessage(fixture('html-only.eml'), { envelopeFrom: '' });
  expect(message.text?.trim()).not.toBe('');
  expect(sanitizedHtml).not.toBeNull();
  expect(sanitizedHtml).not.toMatch(/<script|\son[a-z]+=/i);
});
