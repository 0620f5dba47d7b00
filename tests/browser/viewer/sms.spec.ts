/**
 * Phones in the viewer: a phone is listed by its number, its SMS by their
 * text, and an SMS's pane shows the text, how it came (sent here through the
 * real `twilio` SDK) and the extraction `message.otp()` runs on it.
 */
import { ACCOUNT_SID, AUTH_TOKEN, twilioAt } from '../../integration/sms/sdks.ts';
import { OPERATOR_TOKEN, expect, test } from './harness.ts';
import type { Viewer } from './harness.ts';

/** A phone made through the API: its inbox id, token and number. */
async function createPhone(viewer: Viewer): Promise<{ id: string; token: string; number: string }> {
  const res = await fetch(`${viewer.server.apiUrl}/phones`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  const { data } = (await res.json()) as { data: { id: string; token: string; phoneNumber: string } };
  return { id: data.id, token: data.token, number: data.phoneNumber };
}

test('a phone\'s SMS appear live by their text, and the pane shows the text, how it came and the code message.otp() picks', async ({ page, viewer }) => {
  const phone = await createPhone(viewer);
  const twilio = twilioAt(`${viewer.server.url}/sms/twilio`, ACCOUNT_SID, AUTH_TOKEN);
  await page.goto(viewer.link({ token: phone.token, inbox: phone.id }));
  await expect(page.getByRole('heading', { name: phone.number, level: 2 })).toBeVisible();
  await expect(page.getByRole('list', { name: 'Messages' })).toContainText('No SMS yet');
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveText('Live');

  const sent = await twilio.messages.create({ to: phone.number, from: '+15005550006', body: 'Your Acme code is 482913. Order #889900 ships on 2026-11-25.' });
  const item = page.getByRole('list', { name: 'Messages' }).getByRole('link', { name: /Your Acme code is 482913/ });
  await expect(item).toContainText('SMS');
  await expect(page.locator('#message-count')).toHaveText('1 SMS');
  await item.click();

  await expect(page.getByRole('heading', { name: 'SMS from +15005550006', level: 2 })).toBeVisible();
  await expect(page.getByLabel('SMS text')).toHaveText('Your Acme code is 482913. Order #889900 ships on 2026-11-25.');
  await expect(page.getByText('message.otp() returns')).toContainText('482913');
  const details = page.locator('dl.meta');
  await expect(details).toContainText('Twilio Programmable Messaging');
  await expect(details).toContainText(sent.sid);
  await expect(details).toContainText(phone.number);

  await page.getByRole('tab', { name: 'Extraction' }).click();
  const candidates = page.getByRole('table', { name: /Candidates/ });
  await expect(candidates.getByRole('row').nth(1)).toContainText('482913');
  await expect(page.getByRole('tab', { name: 'HTML' })).toHaveCount(0);
});

test('the operator link lists a phone by its number with its count of SMS, and an email inbox beside it as before', async ({ page, viewer }) => {
  const phone = await createPhone(viewer);
  const inbox = await viewer.createInbox('mail');
  await fetch(`${viewer.server.apiUrl}/sms`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ to: phone.number, from: 'Acme', text: '123456 is your Acme code' }) });
  await page.goto(viewer.link({ key: OPERATOR_TOKEN }));
  const inboxes = page.getByRole('navigation', { name: 'Inboxes' });
  const phoneLink = inboxes.getByRole('link', { name: new RegExp(phone.number.replace('+', '\\+')) });
  await expect(phoneLink).toContainText('phone');
  await expect(phoneLink).toContainText('1 SMS');
  await expect(inboxes.getByRole('link', { name: new RegExp(inbox.address) })).toContainText('0 messages');
  await phoneLink.click();
  await page.getByRole('list', { name: 'Messages' }).getByRole('link', { name: /123456 is your Acme code/ }).click();
  await expect(page.getByRole('heading', { name: 'SMS from Acme', level: 2 })).toBeVisible();
  await expect(page.locator('dl.meta')).toContainText('POST /api/v1/sms');
  await expect(page.getByText('message.otp() returns')).toContainText('123456');
});
