/**
 * The web inbox viewer served by the local service at `/`, in Chromium: live
 * mail, the sandboxed rendering, attachments, access by credential, search,
 * deletion and keyboard navigation.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dompurifyVectors, owaspVectors, XSS_DIR, XSS_SKIP } from '../xss/corpus.ts';
import { OPERATOR_TOKEN, expect, test } from './harness.ts';

test('mail sent over SMTP appears in an open viewer without a reload', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox('signs up');
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await expect(page.getByRole('heading', { name: inbox.address })).toBeVisible();
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveText('Live');
  // A marker in the page's memory: a reload would lose it.
  await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'still here'));

  await viewer.send({ to: inbox.address, subject: 'Confirm your email', text: 'Welcome aboard.' });
  const messages = page.getByRole('list', { name: 'Messages' });
  await expect(messages.getByRole('link', { name: /Confirm your email/ })).toBeVisible();
  await viewer.send({ to: inbox.address, subject: 'Your sign-in code', text: 'Your code is 481 516.' });
  await expect(messages.getByRole('link')).toHaveCount(2);
  // Newest first.
  await expect(messages.getByRole('link').first()).toContainText('Your sign-in code');
  expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe('still here');
  await expect(page.getByRole('navigation', { name: 'Inboxes' }).getByRole('link', { name: new RegExp(inbox.address) })).toContainText('2 messages');
});

test('a hostile message renders sandboxed: no script runs and no request leaves the page', async ({ page, viewer }) => {
  test.skip(XSS_DIR === null, XSS_SKIP);
  const vectors = [...(await owaspVectors()), ...(await dompurifyVectors())];
  const html = [
    '<h1>Every vector of the XSS corpus</h1>',
    '<img src="https://tracker.inboxkit.test/pixel.gif" alt="tracking pixel">',
    '<link rel="stylesheet" href="https://evil.inboxkit.test/x.css">',
    ...vectors.map((v) => `<div>${v.html}</div>`),
  ].join('\n');
  const inbox = await viewer.createInbox();
  await viewer.send({ to: inbox.address, subject: 'Hostile', html, text: 'hostile' });

  const outside: string[] = [];
  const dialogs: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(`${viewer.server.url}/`)) outside.push(request.url());
  });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('popup', (popup) => outside.push(`popup ${popup.url()}`));
  // A request the frame made shows as a failed load too (the hosts do not resolve).
  // (Chromium does not report a sandboxed srcdoc frame's subresources as request events.)
  page.on('console', (message) => {
    const url = message.location().url;
    if (/Failed to load resource/.test(message.text()) && !url.startsWith(`${viewer.server.url}/`)) outside.push(`${message.text()} ${url}`);
  });

  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Hostile/ }).click();
  const frame = page.getByTitle('Message body (sanitized HTML)');
  await expect(frame).toBeVisible();
  expect(await frame.getAttribute('sandbox')).toBe('allow-popups allow-popups-to-escape-sandbox');
  await expect(page.frameLocator('iframe[title="Message body (sanitized HTML)"]').getByRole('heading', { name: 'Every vector of the XSS corpus' })).toBeVisible();
  // Everything the document asked for has been tried once it has loaded.
  await page.frames().find((f) => f.url() === 'about:srcdoc')!.waitForLoadState('load');
  // Hover and scroll, as a reader would: handlers that survived would fire now.
  await frame.hover();
  await page.mouse.wheel(0, 2000);

  expect(dialogs).toEqual([]);
  expect(outside).toEqual([]);
  expect(await page.title()).toContain(inbox.address);

  // Remote images are off by default and come with the toggle.
  const pixel = page.waitForRequest('https://tracker.inboxkit.test/pixel.gif');
  await page.getByRole('checkbox', { name: 'Load remote images' }).check();
  await pixel;
});

test('an attachment downloads byte-identical, and an image attachment shows a thumbnail', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  const bytes = randomBytes(100_000);
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
  await viewer.send({
    to: inbox.address,
    subject: 'Your invoice',
    text: 'Attached.',
    attachments: [
      { filename: 'invoice.bin', content: bytes, contentType: 'application/octet-stream' },
      { filename: 'logo.png', content: png, contentType: 'image/png' },
    ],
  });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Your invoice/ }).click();
  await page.getByRole('tab', { name: 'Attachments (2)' }).click();
  await expect(page.getByRole('img', { name: 'Preview of logo.png' })).toBeVisible();
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download invoice.bin' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('invoice.bin');
  expect(Buffer.compare(await readFile(await download.path()), bytes)).toBe(0);
});

test('a deep link with an inbox token shows that inbox and no other; another inbox id gets the not-found page', async ({ page, viewer }) => {
  const mine = await viewer.createInbox('mine');
  const other = await viewer.createInbox('other');
  await viewer.send({ to: other.address, subject: 'Not for you', text: 'secret' });

  await page.goto(viewer.link({ token: mine.token }));
  await expect(page.getByRole('heading', { name: mine.address })).toBeVisible();
  const inboxes = page.getByRole('navigation', { name: 'Inboxes' }).getByRole('link');
  await expect(inboxes).toHaveCount(1);
  await expect(inboxes).toContainText(mine.address);

  await page.goto(viewer.link({ token: mine.token, inbox: other.id }));
  await expect(page.getByRole('heading', { name: 'Inbox not found' })).toBeVisible();
  await expect(page.getByText(other.address)).toHaveCount(0);
  await expect(page.getByText('Not for you')).toHaveCount(0);
});

test('a wrong token gets a page that says the credential is not valid', async ({ page, viewer }) => {
  await page.goto(viewer.link({ token: 'tmi_not-a-real-token-at-all' }));
  await expect(page.getByRole('heading', { name: 'The credential in this link is not valid' })).toBeVisible();
  await expect(page.getByText(/inbox token is unknown/)).toBeVisible();
  await expect(page.getByLabel('Inbox token, API key or operator token')).toBeVisible();
});

test('without a credential the viewer asks for one, and a pasted inbox token opens the inbox', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  await page.goto(`${viewer.server.url}/`);
  await expect(page.getByRole('heading', { name: 'This viewer needs a credential' })).toBeVisible();
  await page.getByLabel('Inbox token, API key or operator token').fill(inbox.token);
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByRole('heading', { name: inbox.address })).toBeVisible();
});

test('search finds a message by a word of its text', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  // The word sits past the 200-character preview, so only the text body has it.
  const filler = 'Lorem ipsum dolor sit amet. '.repeat(12);
  await viewer.send({ to: inbox.address, subject: 'Weekly digest', text: `${filler}Your parcel is with the courier.` });
  await viewer.send({ to: inbox.address, subject: 'Password reset', text: `${filler}Reset it within an hour.` });
  await viewer.send({ to: inbox.address, subject: 'Welcome', text: `${filler}Glad to have you.` });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  const messages = page.getByRole('list', { name: 'Messages' }).getByRole('link');
  await expect(messages).toHaveCount(3);

  await page.getByRole('searchbox', { name: 'Search messages' }).fill('courier');
  await expect(messages).toHaveCount(1);
  await expect(messages).toContainText('Weekly digest');
  await page.getByRole('searchbox', { name: 'Search messages' }).fill('acme.example');
  await expect(messages).toHaveCount(3);
  await page.getByRole('searchbox', { name: 'Search messages' }).fill('no such word');
  await expect(page.getByText('No message matches “no such word”.')).toBeVisible();
});

test('deleting a message and the inbox from the viewer deletes them through the API', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  await viewer.send({ to: inbox.address, subject: 'Delete me', text: 'bye' });
  await viewer.send({ to: inbox.address, subject: 'Keep me', text: 'hi' });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Delete me/ }).click();
  await expect(page.getByRole('heading', { name: 'Delete me' })).toBeVisible();
  const id = new URLSearchParams(new URL(page.url()).hash.slice(1)).get('message')!;
  await page.getByRole('button', { name: 'Delete message' }).click();
  const messages = page.getByRole('list', { name: 'Messages' }).getByRole('link');
  await expect(messages).toHaveCount(1);
  await expect(messages).toContainText('Keep me');
  expect((await viewer.api(`/messages/${id}`, inbox.token)).status).toBe(404);

  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Delete inbox' }).click();
  await expect(page.getByRole('heading', { name: /The credential in this link is not valid|Inboxes/ }).first()).toBeVisible();
  // The inbox is gone, so its token no longer opens anything.
  expect((await viewer.api(`/inboxes/${inbox.id}`, inbox.token)).status).toBe(401);
});

test('the operator link lists every inbox and follows them live as they appear and go', async ({ page, viewer }) => {
  const first = await viewer.createInbox('first test');
  await page.goto(viewer.link({ key: OPERATOR_TOKEN }));
  const inboxes = page.getByRole('navigation', { name: 'Inboxes' });
  await expect(inboxes.getByRole('link', { name: new RegExp(first.address) })).toContainText('first test');
  await expect(page.getByRole('status', { name: 'Live updates' })).toHaveText('Live');

  const second = await viewer.createInbox('second test');
  await expect(inboxes.getByRole('link', { name: new RegExp(second.address) })).toBeVisible();
  await viewer.send({ to: second.address, subject: 'hello', text: 'hi' });
  await expect(inboxes.getByRole('link', { name: new RegExp(second.address) })).toContainText('1 message');
  await viewer.api(`/inboxes/${first.id}`, first.token, { method: 'DELETE' });
  await expect(inboxes.getByRole('link', { name: new RegExp(first.address) })).toHaveCount(0);

  await inboxes.getByRole('searchbox', { name: 'Filter inboxes' }).fill('no such inbox');
  await expect(inboxes.getByRole('link')).toHaveCount(0);
});

test('j, k and the arrow keys move between messages', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  for (const subject of ['one', 'two', 'three']) await viewer.send({ to: inbox.address, subject, text: subject });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await expect(page.getByRole('list', { name: 'Messages' }).getByRole('link')).toHaveCount(3);
  await page.keyboard.press('j');
  await expect(page.getByRole('heading', { name: 'three', level: 2 })).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('heading', { name: 'two', level: 2 })).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('heading', { name: 'one', level: 2 })).toBeVisible();
  await page.keyboard.press('k');
  await expect(page.getByRole('heading', { name: 'two', level: 2 })).toBeVisible();
});

test('the extraction view shows the code message.otp() picks, its candidates with reasons, and unwrapped links', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  const target = 'https://app.example.com/verify?token=abc';
  await viewer.send({
    to: inbox.address,
    subject: 'Verify your account',
    html: `<p>Order #889900 is on its way.</p><p>Your verification code is <b style="font-size:28px">482913</b>.</p>
      <p><a href="https://www.google.com/url?q=${encodeURIComponent(target)}&sa=D">Verify email</a></p>`,
  });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Verify your account/ }).click();
  await page.getByRole('tab', { name: 'Extraction' }).click();
  await expect(page.getByText('message.otp() returns')).toContainText('482913');
  const candidates = page.getByRole('table', { name: /Candidates/ });
  await expect(candidates.getByRole('row').nth(1)).toContainText('482913');
  await expect(candidates.getByRole('row').nth(1)).toContainText(/verification code/);
  const links = page.getByRole('table', { name: /message\.links\(\)/ });
  await expect(links.getByRole('row', { name: /Verify email/ })).toContainText(target);
  await expect(links.getByRole('row', { name: /Verify email/ })).toContainText('unwrapped google');
});

test('the extraction view lists the numbers it ruled out also when it found a code', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  await viewer.send({
    to: inbox.address,
    subject: 'Your sign-in code',
    html: '<p>Your sign-in code is <b>482913</b>.</p><p>Questions? Call +1 415 555 0134. Order #889900 ships on 2026-11-25.</p>',
  });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Your sign-in code/ }).click();
  await page.getByRole('tab', { name: 'Extraction' }).click();
  await expect(page.getByText('message.otp() returns')).toContainText('482913');
  const ruledOut = page.locator('details', { hasText: 'ruled out' });
  await expect(ruledOut).toBeVisible();
  await ruledOut.locator('summary').click();
  await expect(ruledOut.getByRole('listitem').filter({ hasText: '889900' })).toBeVisible();
});

test('a long address wraps between its parts in a narrow inbox column, never cut or ellipsized mid-word', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox('narrow', 'signs-up-with-a-magic-link-and-a-code-w1-k3j9x');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  const item = page.locator('.items .address', { hasText: inbox.address });
  await expect(item).toHaveText(inbox.address);
  const heading = page.getByRole('heading', { name: inbox.address, level: 2 });
  await expect(heading).toBeVisible();
  for (const element of [item, heading]) {
    const layout = await element.evaluate((el) => {
      // Every run of text between two break opportunities (<wbr>) sits on one line, and all of it inside the box (not clipped or ellipsized).
      const box = el.getBoundingClientRect();
      const runs = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((node) => {
        const range = document.createRange();
        range.selectNodeContents(node);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        return { text: node.textContent, lines: new Set(rects.map((r) => Math.round(r.top))).size, outside: rects.some((r) => r.right > box.right + 1) };
      });
      return { runs, clipped: runs.some((r) => r.outside) };
    });
    expect(layout.clipped).toBe(false);
    expect(layout.runs.map((r) => r.text).join('')).toBe(inbox.address);
    expect(layout.runs.filter((r) => r.lines !== 1)).toEqual([]);
  }
  // The column is narrower than the address: it did wrap (over several lines), at the break opportunities.
  const wrapped = await item.evaluate((el) => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight || '16'));
  expect(wrapped).toBeGreaterThan(1.5);
});

test('the message pane shows text, headers and raw source, and the width toggle narrows the rendering', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox();
  await viewer.send({ to: inbox.address, subject: 'Views', text: 'plain words here', html: '<p>rich words here</p>', headers: { 'X-Campaign': 'spring' } });
  await page.goto(viewer.link({ token: inbox.token, inbox: inbox.id }));
  await page.getByRole('link', { name: /Views/ }).click();
  const frame = page.getByTitle('Message body (sanitized HTML)');
  const wide = (await frame.boundingBox())!.width;
  await page.getByRole('button', { name: 'Mobile' }).click();
  await expect(page.getByRole('button', { name: 'Mobile' })).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(async () => (await frame.boundingBox())!.width).toBeLessThan(wide);
  await page.getByRole('tab', { name: 'Text' }).click();
  await expect(page.getByRole('tabpanel')).toContainText('plain words here');
  await page.getByRole('tab', { name: 'Headers' }).click();
  await expect(page.getByRole('row', { name: /x-campaign/ })).toContainText('spring');
  await page.getByRole('tab', { name: 'Raw' }).click();
  await expect(page.getByRole('tabpanel')).toContainText('X-Campaign: spring');
});

test('a report link without a credential opens once the operator link was opened in the browser, and asks for one otherwise', async ({ page, viewer }) => {
  const inbox = await viewer.createInbox('kept by a failed test');
  await viewer.send({ to: inbox.address, subject: 'Kept mail', text: 'look at me' });
  await page.goto(viewer.link({ inbox: inbox.id }));
  await expect(page.getByRole('heading', { name: 'This viewer needs a credential' })).toBeVisible();
  // Pasting a credential keeps the inbox the link pointed at.
  await page.getByLabel('Inbox token, API key or operator token').fill(inbox.token);
  await page.getByRole('button', { name: 'Open' }).click();
  await expect(page.getByRole('heading', { name: inbox.address })).toBeVisible();

  await page.goto(viewer.link({ key: OPERATOR_TOKEN }));
  await expect(page.getByRole('heading', { name: 'Inboxes' })).toBeVisible();
  await page.goto('about:blank');
  await page.goto(viewer.link({ inbox: inbox.id }));
  await expect(page.getByRole('heading', { name: inbox.address })).toBeVisible();
  await expect(page.getByRole('link', { name: /Kept mail/ })).toBeVisible();
  expect(page.url()).not.toContain('tmo_');
});
