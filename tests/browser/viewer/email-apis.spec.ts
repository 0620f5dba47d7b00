/**
 * How an email came, in the viewer: one sent through a provider's API (here
 * the real `resend` SDK) names the provider, the id its API answered and its
 * template; one sent over SMTP says SMTP.
 */
import { Resend } from 'resend';
import { expect, test } from './harness.ts';

test('the pane of an email says how it came: the provider API with its id and template, or SMTP', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox('providers');
  const resend = new Resend('re_test', { baseUrl: `${viewer.server.url}/email/resend` });
  const { data } = await resend.emails.send({ from: 'a@acme.test', to: inbox.address, subject: 'Through Resend', template: { id: 'welcome', variables: { code: '123456' } } } as never);
  await viewer.send({ to: inbox.address, subject: 'Through SMTP', text: 'hello' });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  const messages = page.getByRole('list', { name: 'Messages' });
  await messages.getByRole('link', { name: /Through Resend/ }).click();
  const details = page.locator('dl.meta');
  await expect(details).toContainText('Resend API');
  await expect(details).toContainText(`id ${data?.id ?? 'missing'}`);
  await expect(details).toContainText('template welcome');
  await messages.getByRole('link', { name: /Through SMTP/ }).click();
  await expect(page.getByRole('heading', { name: 'Through SMTP', level: 2 })).toBeVisible();
  await expect(details).toContainText('SMTP');
  await expect(details).not.toContainText('Resend');
});
