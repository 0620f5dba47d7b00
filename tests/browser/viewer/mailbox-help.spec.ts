/**
 * The viewer says how to read an inbox with an IMAP or POP3 client when the
 * service runs them: where they listen, the account and its password.
 */
import { startServer } from '../../../src/server/index.ts';
import { expect, test } from './harness.ts';

test('an inbox of a service with IMAP and POP3 shows where they listen and how to log in; one without them shows nothing', async ({ page, viewer, viewerAssets }) => {
  const inbox = await viewer.createInbox('no mailbox ports');
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await expect(page.getByRole('heading', { name: inbox.address })).toBeVisible();
  await expect(page.getByText('Read this inbox with an IMAP or POP3 client')).toHaveCount(0);

  const server = await startServer({ viewerAssetsDir: viewerAssets, rateLimit: false, imapPort: 0, pop3Port: 0 });
  try {
    const created = await fetch(`${server.apiUrl}/inboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const other = ((await created.json()) as { data: { id: string; address: string; token: string } }).data;
    await page.goto(`${server.url}/#${new URLSearchParams({ token: other.token, inbox: other.id })}`);
    await page.getByText('Read this inbox with an IMAP or POP3 client').click();
    const help = page.locator('#mailbox-help');
    await expect(help).toContainText(`IMAP: 127.0.0.1:${server.imap?.port ?? 'missing'}`);
    await expect(help).toContainText(`POP3: 127.0.0.1:${server.pop3?.port ?? 'missing'}`);
    await expect(help).toContainText(`user: ${other.address}`);
    await expect(help).toContainText("password: this inbox's token");
  } finally {
    await server.close();
  }
});
