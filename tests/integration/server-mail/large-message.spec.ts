/**
 * Messages of 512 KiB and more are prepared in the intake's worker thread:
 * they are stored as complete as small ones.
 */
import { test, expect } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { startMailServer } from './harness.ts';

// A 1×1 transparent PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

test('a large message (prepared off the event loop) is stored with sanitized HTML, its cid: image resolved and its attachment byte-exact', async () => {
  const server = await startMailServer();
  try {
    const inbox = await server.createInbox();
    const big = randomBytes(600 * 1024);
    await server.send({
      from: 'robot@app.example',
      to: inbox.address,
      subject: 'large',
      html: '<p onclick="x()">Logo <img src="cid:logo@app.example"></p>',
      attachments: [
        { filename: 'logo.png', content: PNG, cid: 'logo@app.example', contentType: 'image/png' },
        { filename: 'big.bin', content: big, contentType: 'application/octet-stream' },
      ],
    });
    const [summary] = await server.listMessages(inbox);
    expect(summary!.size).toBeGreaterThan(512 * 1024);
    const message = await server.getMessage(inbox, summary!.id);
    expect(message.html).toBe(`<p>Logo <img src="data:image/png;base64,${PNG.toString('base64')}"></p>`);
    const file = message.attachments.find((a) => a.filename === 'big.bin')!;
    const res = await server.api(`/messages/${message.id}/attachments/${file.id}`, inbox.token);
    expect(Buffer.from(await res.arrayBuffer()).equals(big)).toBe(true);
  } finally {
    await server.close();
  }
});
