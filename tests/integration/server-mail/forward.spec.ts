import net from 'node:net';
import { readFileSync } from 'node:fs';
import { expect, startMailServer, test } from './harness.ts';

test('a message to a forwarding inbox is relayed as-is to another local server', async () => {
  const target = await startMailServer();
  const relaying = await startMailServer({ relayUrl: `smtp://127.0.0.1:${target.smtpPort}`, forwardAllow: ['inboxkit.example.com'] });
  try {
    const destination = await target.createInbox();
    const inbox = await relaying.createInbox();
    await relaying.json(`/inboxes/${inbox.id}`, inbox.token, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ forwardTo: destination.address }),
    });
    const raw = readFileSync(new URL('../../fixtures/eml/attachments.eml', import.meta.url));
    await relaying.send({ envelope: { from: 'robot@app.example', to: [inbox.address] }, raw });

    const [kept] = await relaying.listMessages(inbox);
    expect(kept?.subject).toBe('Your invoice');
    const [forwarded] = await target.waitForMessages(destination, 1);
    expect(forwarded?.subject).toBe('Your invoice');
    const relayedRaw = Buffer.from(await (await target.api(`/messages/${forwarded!.id}/raw`, destination.token)).arrayBuffer());
    expect(relayedRaw.equals(raw)).toBe(true);
    const message = await target.getMessage(destination, forwarded!.id);
    expect(message.attachments.map((a) => a.filename)).toEqual(['invoice.pdf', 'attachment-2.bin', 'Résumé €.csv']);
    expect(relaying.logs.some((l) => l['msg'] === 'forward: message relayed')).toBe(true);
  } finally {
    await relaying.close();
    await target.close();
  }
});

test('intake never waits on the relay: with a relay that never answers, mail is still accepted and stored', async () => {
  const sockets = new Set<net.Socket>();
  let done = false;
  const silent = net.createServer((socket) => {
    if (done) socket.destroy();
    else sockets.add(socket);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
  const port = (silent.address() as net.AddressInfo).port;
  const relaying = await startMailServer({ relayUrl: `smtp://127.0.0.1:${port}`, forwardAllow: ['elsewhere.test', 'inboxkit.example.com'] });
  try {
    const inbox = await relaying.createInbox();
    await relaying.json(`/inboxes/${inbox.id}`, inbox.token, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ forwardTo: 'someone@elsewhere.test' }),
    });
    for (const subject of ['first', 'second']) {
      const info = await relaying.send({ from: 'app@example.com', to: inbox.address, subject, text: subject });
      expect(info.response).toMatch(/^250 /);
    }
    expect((await relaying.listMessages(inbox)).map((m) => m.subject)).toEqual(['second', 'first']);
    // The relay did get the connection attempts: forwarding is under way, in the background.
    await expect.poll(() => sockets.size).toBeGreaterThan(0);
  } finally {
    done = true;
    for (const socket of sockets) socket.destroy();
    await relaying.close();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test('a relay that refuses connections is logged with the message, the recipient and a retry', async () => {
  const closed = net.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
  const port = (closed.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const relaying = await startMailServer({ relayUrl: `smtp://127.0.0.1:${port}`, forwardAllow: ['elsewhere.test', 'inboxkit.example.com'] });
  try {
    const inbox = await relaying.createInbox();
    await relaying.json(`/inboxes/${inbox.id}`, inbox.token, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ forwardTo: 'someone@elsewhere.test' }),
    });
    await relaying.send({ from: 'app@example.com', to: inbox.address, subject: 'refused relay', text: 'x' });
    const [message] = await relaying.listMessages(inbox);
    await expect.poll(() => relaying.logs.find((l) => String(l['msg']).startsWith(`forward: relaying message ${message!.id}`))).toBeTruthy();
    const line = relaying.logs.find((l) => String(l['msg']).startsWith(`forward: relaying message ${message!.id}`))!;
    expect(line).toMatchObject({ level: 40, to: 'someone@elsewhere.test', attempt: 1 });
    expect(String(line['msg'])).toContain('retrying in');
  } finally {
    await relaying.close();
  }
});
