/**
 * Every inbox as a POP3 maildrop (issue 46), read with node-pop3, a real
 * client: USER/PASS with the same credentials as IMAP, STAT, LIST, UIDL,
 * RETR (the message as received, marked seen), TOP, DELE undone by RSET,
 * DELE committed by QUIT through the store, and STLS with the SMTP intake's
 * certificate.
 */
import net from 'node:net';
import tls from 'node:tls';
import Pop3Command from 'node-pop3';
import { ImapFlow } from 'imapflow';
import { expect, startMailServer, test } from './harness.ts';
import type { MailServer } from './harness.ts';

let mail: MailServer;
test.afterEach(async () => {
  await mail.close();
});

/** A logged-in node-pop3 client of the service. */
async function pop3(inbox: { address: string; token: string }, options: { tls?: boolean } = {}): Promise<Pop3Command> {
  const client = new Pop3Command({ host: '127.0.0.1', port: mail.server.pop3!.port, user: inbox.address, password: inbox.token, ...(options.tls ? { tlsOptions: { rejectUnauthorized: false } } : {}) });
  await client.connect();
  if (options.tls) await client.command('STLS');
  await client.command('USER', inbox.address);
  await client.command('PASS', inbox.token);
  return client;
}

/** A POP3 conversation by hand: `command` returns the reply (all of it, through the ending ".", when `multi`). */
async function rawPop3(port: number) {
  let socket: net.Socket | tls.TLSSocket = net.connect(port, '127.0.0.1');
  let buffer = '';
  let waiter: (() => void) | null = null;
  const onData = (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    waiter?.();
  };
  socket.on('data', onData);
  const reply = async (multi: boolean): Promise<string> => {
    for (;;) {
      const end = multi ? (buffer.startsWith('-') ? buffer.indexOf('\r\n') : buffer.indexOf('\r\n.\r\n')) : buffer.indexOf('\r\n');
      if (end !== -1) {
        const cut = multi && !buffer.startsWith('-') ? end + 5 : end + 2;
        const text = buffer.slice(0, cut - 2);
        buffer = buffer.slice(cut);
        return text;
      }
      await new Promise<void>((resolve) => (waiter = resolve));
    }
  };
  await reply(false);
  return {
    async command(line: string, multi = false) {
      socket.write(`${line}\r\n`);
      return reply(multi);
    },
    async startTls() {
      socket.off('data', onData);
      const secure = tls.connect({ socket, rejectUnauthorized: false });
      await new Promise<void>((resolve, reject) => secure.once('secureConnect', () => resolve()).once('error', reject));
      secure.on('data', onData);
      socket = secure;
      return secure.getPeerCertificate();
    },
    close: () => socket.destroy(),
  };
}

test.describe('POP3', () => {
  test.beforeEach(async () => {
    mail = await startMailServer({ imapPort: 0, pop3Port: 0 });
  });

  test('STAT, LIST, UIDL, RETR and TOP read the inbox as received; RETR marks the message seen for IMAP', async () => {
    const inbox = await mail.createInbox();
    const other = await mail.createInbox();
    await mail.send({ from: 'a@example.test', to: other.address, subject: 'not yours', text: 'x' });
    await mail.send({ from: 'a@example.test', to: inbox.address, subject: 'first', text: 'line one\n.starts with a dot\nline three' });
    await mail.send({ from: 'a@example.test', to: inbox.address, subject: 'second', text: 'two' });
    const summaries = (await mail.waitForMessages(inbox, 2)).reverse();
    const raws = await Promise.all(summaries.map(async (s) => Buffer.from(await (await mail.api(`/messages/${s.id}/raw`, inbox.token)).arrayBuffer()).toString('latin1')));

    const client = await pop3(inbox);
    const [stat] = await client.command('STAT');
    expect(stat).toBe(`2 ${raws[0]!.length + raws[1]!.length}`);
    const [, listStream] = await client.command('LIST');
    expect(await Pop3Command.listify(await Pop3Command.stream2String(listStream))).toEqual([['1', String(raws[0]!.length)], ['2', String(raws[1]!.length)]]);
    expect(await client.UIDL()).toEqual([['1', summaries[0]!.id], ['2', summaries[1]!.id]]);
    // The server byte-stuffs a line starting with "."; node-pop3 leaves the stuffing in.
    const stuffed = await client.RETR(1);
    expect(stuffed).toContain('\n..starts with a dot');
    const retrieved = stuffed.replace(/^\.\./gm, '.');
    expect(retrieved.replace(/\r\n/g, '\n')).toBe(raws[0]!.replace(/\r\n/g, '\n').replace(/\n$/, ''));
    const top = await client.TOP(1, 1);
    expect(top).toContain('Subject: first');
    expect(top).toContain('line one');
    expect(top).not.toContain('line three');
    await client.QUIT();

    const imap = new ImapFlow({ host: '127.0.0.1', port: mail.server.imap!.port, secure: false, auth: { user: inbox.address, pass: inbox.token }, logger: false });
    await imap.connect();
    await imap.mailboxOpen('INBOX');
    expect(await imap.search({ seen: true })).toEqual([1]);
    await imap.logout();
  });

  test('DELE is undone by RSET, kept until QUIT, then deleted through the store', async () => {
    const inbox = await mail.createInbox();
    for (const subject of ['a', 'b', 'c']) await mail.send({ from: 'a@example.test', to: inbox.address, subject, text: subject });
    await mail.waitForMessages(inbox, 3);
    const client = await pop3(inbox);
    await client.command('DELE', 2);
    const [stat] = await client.command('STAT');
    expect(stat.split(' ')[0]).toBe('2');
    await expect(client.RETR(2)).rejects.toThrow(/No message 2 \(deleted in this session\)/);
    await client.command('RSET');
    expect((await client.command('STAT'))[0].split(' ')[0]).toBe('3');
    await client.command('DELE', 1);
    await client.command('DELE', 3);
    expect((await mail.listMessages(inbox)).length).toBe(3);
    await client.QUIT();
    expect((await mail.listMessages(inbox)).map((m) => m.subject)).toEqual(['b']);
  });

  test('a wrong token or an unknown address is refused with [AUTH], and CAPA lists what is offered', async () => {
    const inbox = await mail.createInbox();
    const raw = await rawPop3(mail.server.pop3!.port);
    const capabilities = (await raw.command('CAPA', true)).split('\r\n');
    expect(capabilities).toEqual(expect.arrayContaining(['+OK Capability list follows', 'USER', 'TOP', 'UIDL', 'RESP-CODES']));
    expect(capabilities).not.toContain('STLS');
    raw.close();
    const bad = new Pop3Command({ host: '127.0.0.1', port: mail.server.pop3!.port, user: inbox.address, password: `${inbox.token}x` });
    await bad.connect();
    await bad.command('USER', inbox.address);
    await expect(bad.command('PASS', `${inbox.token}x`)).rejects.toThrow(/\[AUTH\]/);
    await bad.command('USER', `nobody@${inbox.domain}`);
    await expect(bad.command('PASS', inbox.token)).rejects.toThrow(/\[AUTH\]/);
    await bad.QUIT();
  });
});

test.describe('POP3 with a certificate', () => {
  test.beforeEach(async () => {
    mail = await startMailServer({ pop3Port: 0, smtpTlsSelfSigned: true, domains: ['mail.pop3.test'] });
  });

  test('STLS upgrades the connection before the login', async () => {
    const inbox = await mail.createInbox();
    await mail.send({ from: 'a@example.test', to: inbox.address, subject: 'over tls', text: 'x' });
    // node-pop3 speaks TLS only from the first byte (port 995 style), so STLS is spoken here by hand.
    const client = await rawPop3(mail.server.pop3!.port);
    expect(await client.command('CAPA', true)).toContain('\r\nSTLS\r\n');
    expect(await client.command('STLS')).toMatch(/^\+OK/);
    const cert = await client.startTls();
    expect(cert.subject.CN).toBe('mail.pop3.test');
    expect(await client.command('CAPA', true)).not.toContain('STLS');
    expect(await client.command(`USER ${inbox.address}`)).toMatch(/^\+OK/);
    expect(await client.command(`PASS ${inbox.token}`)).toMatch(/^\+OK .* has 1 message$/);
    expect(await client.command('RETR 1', true)).toContain('Subject: over tls');
    expect(await client.command('QUIT')).toMatch(/^\+OK/);
    client.close();
  });
});
