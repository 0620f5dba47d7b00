/**
 * An invoice email with a PDF attachment and an inline logo.
 */
import { test, expect } from '../src/playwright/index.ts'; // in your project: from 'inboxkit/playwright'

test('the invoice email carries the invoice as a PDF', async ({ page, inbox }) => {
  await page.goto('/billing');
  await page.getByLabel('Email').fill(inbox.address);
  await page.getByRole('button', { name: 'Send invoice' }).click();
  const notice = await page.getByRole('status').textContent();
  const number = /INV-\d+/.exec(notice ?? '')?.[0];
  expect(number, `the page names the invoice: ${notice}`).toBeDefined();

  const message = await inbox.waitForMessage({ subject: `Your Acme invoice ${number}` });

  const pdf = message.attachments.find((a) => a.contentType === 'application/pdf');
  expect(pdf?.filename).toMatch(/^invoice-\d+\.pdf$/);
  const logo = message.attachments.find((a) => a.filename === 'acme-logo.png');
  expect(logo?.inline).toBe(true);

  const file = await message.attachment(pdf!.filename);
  const bytes = Buffer.from(file.bytes);
  expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  expect(bytes.toString('latin1')).toContain(number!);
});
