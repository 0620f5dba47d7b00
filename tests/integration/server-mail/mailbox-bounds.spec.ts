/**
 * The bounds of the IMAP and POP3 listeners (issue 46), over raw
 * connections: connections per client address (the PROXY header's address
 * behind a balancer) and in total, line and literal sizes, commands per
 * minute, the login and idle timeouts, and failed logins closing the
 * connection. Each refusal names its flag.
 */
import net from 'node:net';
import type { StartServerOptions } from '../../../src/server/start.ts';
import { expect, startMailServer, test } from './harness.ts';
import type { MailServer } from './harness.ts';

let mail: MailServer | null = null;
test.afterEach(async () => {
  await mail?.close();
  mail = null;
});

async function serve(options: StartServerOptions): Promise<MailServer> {
  mail = await startMailServer({ imapPort: 0, pop3Port: 0, ...options });
  return mail;
}

/** A raw line conversation: `next()` is the next line the server sent, `closed` settles when it hangs up. */
function raw(port: number, first?: string) {
  const socket = net.connect(port, '127.0.0.1');
  if (first !== undefined) socket.write(first);
  const lines: string[] = [];
  let buffer = '';
  let wake: (() => void) | null = null;
  let ended = false;
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    let at: number;
    while ((at = buffer.indexOf('\r\n')) !== -1) {
      lines.push(buffer.slice(0, at));
      buffer = buffer.slice(at + 2);
    }
    wake?.();
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      ended = true;
      wake?.();
      resolve();
    }),
  );
  const next = async (): Promise<string | null> => {
    while (lines.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
    return lines.shift() ?? null;
  };
  return {
    socket,
    next,
    closed,
    send: (text: string) => socket.write(text),
    /** Sends a tagged command and returns every line up to its tagged answer (or the hang-up). */
    async command(line: string): Promise<string[]> {
      const tag = line.split(' ')[0]!;
      socket.write(`${line}\r\n`);
      const out: string[] = [];
      for (;;) {
        const got = await next();
        if (got === null) return out;
        out.push(got);
        if (got.startsWith(`${tag} `)) return out;
      }
    },
    end: () => socket.destroy(),
  };
}

test('connections per client address are capped; a freed place is taken again', async () => {
  const server = await serve({ mailboxMaxConnectionsPerAddress: 2 });
  const port = server.server.imap!.port;
  const a = raw(port);
  const b = raw(port);
  expect(await a.next()).toMatch(/^\* OK /);
  expect(await b.next()).toMatch(/^\* OK /);
  const c = raw(port);
  expect(await c.next()).toBe('* BYE [UNAVAILABLE] too many connections from your address (--mailbox-max-connections-per-address); close one and try again');
  await c.closed;
  a.end();
  await a.closed;
  const d = raw(port);
  expect(await d.next()).toMatch(/^\* OK /);
  b.end();
  d.end();

  const pop = server.server.pop3!.port;
  const [p1, p2, p3] = [raw(pop), raw(pop), raw(pop)];
  const answers = await Promise.all([p1.next(), p2.next(), p3.next()]);
  expect(answers.filter((line) => line?.startsWith('+OK'))).toHaveLength(2);
  expect(answers).toContain('-ERR [SYS/TEMP] too many connections from your address (--mailbox-max-connections-per-address); close one and try again');
  [p1, p2, p3].forEach((p) => p.end());
});

test('connections in total are capped per listener', async () => {
  const server = await serve({ mailboxMaxConnections: 2, mailboxMaxConnectionsPerAddress: null });
  const port = server.server.imap!.port;
  const open = [raw(port), raw(port)];
  for (const c of open) expect(await c.next()).toMatch(/^\* OK /);
  const third = raw(port);
  expect(await third.next()).toMatch(/^\* BYE \[UNAVAILABLE\] too many connections to this server \(--mailbox-max-connections\)/);
  await third.closed;
  open.forEach((c) => c.end());
});

test('behind a balancer the PROXY header\'s address is the one capped', async () => {
  const server = await serve({ mailboxProxy: true, mailboxMaxConnectionsPerAddress: 1 });
  const port = server.server.imap!.port;
  const header = (client: string) => `PROXY TCP4 ${client} 127.0.0.1 40000 143\r\n`;
  const first = raw(port, header('198.51.100.7'));
  const other = raw(port, header('198.51.100.8'));
  expect(await first.next()).toMatch(/^\* OK /);
  expect(await other.next()).toMatch(/^\* OK /);
  const again = raw(port, header('198.51.100.7'));
  expect(await again.next()).toMatch(/too many connections from your address/);
  const noHeader = raw(port, 'a1 CAPABILITY\r\n');
  await noHeader.closed;
  expect(await noHeader.next()).toBeNull();
  first.end();
  other.end();
});

test('a line over its bound and literals over theirs are refused, naming the flag', async () => {
  const server = await serve({ mailboxMaxLineBytes: 1024, mailboxMaxLiteralBytes: 100 });
  const port = server.server.imap!.port;
  const literal = raw(port);
  await literal.next();
  expect(await literal.command('a1 LOGIN {200}')).toEqual(['a1 NO [TOOBIG] Literals of one command may total 100 bytes in 16 literals (--mailbox-max-literal-bytes)']);
  // A synchronizing literal that fits is asked for with "+" and read.
  literal.send('a2 LOGIN {5}\r\n');
  expect(await literal.next()).toMatch(/^\+ /);
  literal.send('a@b.c "wrong"\r\n');
  expect(await literal.next()).toBe('a2 NO [AUTHENTICATIONFAILED] Log in with an active inbox\'s address and its inbox token, or an API key of its owner');
  // A non-synchronizing literal over the bound cannot be skipped: the connection is closed.
  literal.send('a3 LOGIN {500+}\r\n');
  expect(await literal.next()).toMatch(/^\* BYE \[TOOBIG\]/);
  await literal.closed;

  const long = raw(port);
  await long.next();
  long.send(`a1 LOGIN ${'x'.repeat(3000)}`);
  expect(await long.next()).toBe('* BYE Command line longer than 1024 bytes (--mailbox-max-line-bytes); closing');
  await long.closed;
});

test('commands past the per-minute bound are refused, and the connection stays usable', async () => {
  const server = await serve({ mailboxCommandsPerMinute: 3 });
  const client = raw(server.server.imap!.port);
  await client.next();
  for (const tag of ['a1', 'a2', 'a3']) expect((await client.command(`${tag} NOOP`)).at(-1)).toBe(`${tag} OK NOOP completed`);
  expect(await client.command('a4 NOOP')).toEqual(['a4 NO [LIMIT] More than 3 commands in a minute on this connection (--mailbox-commands-per-minute); wait and try again']);
  client.end();
});

test('a silent connection is logged out: before login after the login timeout, after it after the idle timeout', async () => {
  const server = await serve({ mailboxLoginTimeoutMs: 300, mailboxIdleTimeoutMs: 600 });
  const inbox = await server.createInbox();
  const silent = raw(server.server.imap!.port);
  expect(await silent.next()).toMatch(/^\* OK /);
  expect(await silent.next()).toBe('* BYE Autologout: the connection was idle for too long');
  await silent.closed;

  const idle = raw(server.server.imap!.port);
  await idle.next();
  expect((await idle.command(`a1 LOGIN ${inbox.address} ${inbox.token}`)).at(-1)).toMatch(/^a1 OK /);
  expect((await idle.command('a2 SELECT INBOX')).at(-1)).toMatch(/^a2 OK \[READ-WRITE\]/);
  idle.send('a3 IDLE\r\n');
  expect(await idle.next()).toBe('+ idling');
  expect(await idle.next()).toBe('* BYE Autologout: the connection was idle for too long');
  await idle.closed;

  const pop = raw(server.server.pop3!.port);
  expect(await pop.next()).toMatch(/^\+OK /);
  expect(await pop.next()).toBe('-ERR Autologout: the connection was idle for too long (nothing deleted)');
  await pop.closed;
});

test('failed logins close the connection after the bound, and a good login afterwards works', async () => {
  const server = await serve({ mailboxMaxLoginFailures: 2 });
  const inbox = await server.createInbox();
  const client = raw(server.server.imap!.port);
  await client.next();
  expect(await client.command(`a1 LOGIN ${inbox.address} wrong-token`)).toEqual(['a1 NO [AUTHENTICATIONFAILED] Log in with an active inbox\'s address and its inbox token, or an API key of its owner']);
  expect(await client.command(`a2 LOGIN nobody@${inbox.domain} ${inbox.token}`)).toEqual(['a2 NO [AUTHENTICATIONFAILED] Log in with an active inbox\'s address and its inbox token, or an API key of its owner']);
  expect(await client.next()).toBe('* BYE Too many failed logins (2, --mailbox-max-login-failures); closing');
  await client.closed;

  const pop = raw(server.server.pop3!.port);
  await pop.next();
  for (const attempt of [1, 2]) {
    pop.send(`USER ${inbox.address}\r\nPASS wrong-${attempt}\r\n`);
    expect(await pop.next()).toMatch(/^\+OK /);
    expect(await pop.next()).toMatch(/^-ERR \[AUTH\] /);
  }
  expect(await pop.next()).toBe('-ERR Too many failed logins (2, --mailbox-max-login-failures); closing');
  await pop.closed;

  const good = raw(server.server.imap!.port);
  await good.next();
  expect((await good.command(`a1 LOGIN ${inbox.address} ${inbox.token}`)).at(-1)).toMatch(/^a1 OK \[CAPABILITY .*\] Logged in to /);
  good.end();
});

test('an expired or deleted inbox has no account, and an open session ends with BYE when its inbox is deleted', async () => {
  const server = await serve({});
  const inbox = await server.createInbox();
  const client = raw(server.server.imap!.port);
  await client.next();
  await client.command(`a1 LOGIN ${inbox.address} ${inbox.token}`);
  await client.command('a2 SELECT INBOX');
  client.send('a3 IDLE\r\n');
  expect(await client.next()).toBe('+ idling');
  expect((await server.api(`/inboxes/${inbox.id}`, inbox.token, { method: 'DELETE' })).status).toBe(200);
  expect(await client.next()).toBe('* BYE the inbox was deleted; closing');
  await client.closed;
  const after = raw(server.server.imap!.port);
  await after.next();
  expect((await after.command(`a1 LOGIN ${inbox.address} ${inbox.token}`)).at(-1)).toMatch(/^a1 NO \[AUTHENTICATIONFAILED\]/);
  after.end();
});

test('hostile commands get one BAD line each and the session goes on: line breaks in literals, unknown items, bad sets, stray parentheses', async () => {
  const server = await serve({});
  const inbox = await server.createInbox();
  await server.send({ from: 'a@example.test', to: inbox.address, subject: 'one', text: 'x' });
  await server.waitForMessages(inbox, 1);
  const client = raw(server.server.imap!.port);
  await client.next();
  await client.command(`a1 LOGIN ${inbox.address} ${inbox.token}`);
  await client.command('a2 SELECT INBOX');
  client.send('a3 STORE 1 +FLAGS ({13+}\r\nx\r\n* 9 EXISTS)\r\n');
  expect(await client.next()).toMatch(/^a3 BAD STORE: "x\\r\\n\* 9 EXISTS" is not a flag/);
  client.send('a4 FETCH {9+}\r\n1\r\n* BYE FLAGS\r\n');
  expect(await client.next()).toMatch(/^a4 BAD "1 \* BYE " is not a sequence set/);
  for (const [line, answer] of [
    ['a5 FETCH 1 (NOPE)', /^a5 BAD FETCH item NOPE is not one/],
    ['a6 FETCH 7 FLAGS', /^a6 BAD message number out of range: the mailbox has 1 message$/],
    ['a7 SEARCH ((( ALL', /^a7 BAD a "\(" is not closed$/],
    ['a8 SEARCH ALL)', /^a8 BAD a "\)" closes no list$/],
    ['a9 SEARCH BOGUS', /^a9 BAD SEARCH criterion BOGUS is not one/],
    ['b1 SELECT Other', /^b1 NO \[NONEXISTENT\]/],
    ['b2 APPEND INBOX {3}', /^b2 NO \[CANNOT\]/],
  ] as const) {
    const lines = await client.command(line);
    expect(lines.at(-1)).toMatch(answer);
  }
  expect((await client.command('b3 SELECT INBOX')).at(-1)).toMatch(/^b3 OK \[READ-WRITE\]/);
  expect((await client.command('b4 FETCH 1 (FLAGS)'))).toEqual(['* 1 FETCH (FLAGS ())', 'b4 OK FETCH completed']);
  client.end();
});

test('AUTHENTICATE PLAIN logs in with the initial response or after a "+", and a wrong token is refused the same way as LOGIN', async () => {
  const server = await serve({});
  const inbox = await server.createInbox();
  const plain = (user: string, pass: string) => Buffer.from(`\0${user}\0${pass}`).toString('base64');
  const first = raw(server.server.imap!.port);
  expect(await first.next()).toMatch(/AUTH=PLAIN/);
  expect((await first.command(`a1 AUTHENTICATE PLAIN ${plain(inbox.address, inbox.token)}`)).at(-1)).toMatch(/^a1 OK \[CAPABILITY [^\]]*\] Logged in to /);
  expect((await first.command('a2 CAPABILITY'))[0]).not.toMatch(/AUTH=PLAIN/);
  first.end();

  const second = raw(server.server.imap!.port);
  await second.next();
  second.send('b1 AUTHENTICATE PLAIN\r\n');
  expect(await second.next()).toBe('+ ');
  second.send(`${plain(inbox.address, `${inbox.token}x`)}\r\n`);
  expect(await second.next()).toBe('b1 NO [AUTHENTICATIONFAILED] Log in with an active inbox\'s address and its inbox token, or an API key of its owner');
  second.send('b2 AUTHENTICATE PLAIN\r\n');
  expect(await second.next()).toBe('+ ');
  second.send('*\r\n');
  expect(await second.next()).toBe('b2 BAD AUTHENTICATE cancelled');
  second.end();
});

test('a session that ended after STARTTLS gives its place back: with one connection per address, three in a row are served', async () => {
  const { ImapFlow } = await import('imapflow');
  const server = await serve({ smtpTlsSelfSigned: true, mailboxMaxConnectionsPerAddress: 1 });
  const inbox = await server.createInbox();
  // One session over TLS, start to logout; false when the server refused the connection.
  const session = async () => {
    const client = new ImapFlow({ host: '127.0.0.1', port: server.server.imap!.port, secure: false, doSTARTTLS: true, tls: { rejectUnauthorized: false }, auth: { user: inbox.address, pass: inbox.token }, logger: false });
    client.on('error', () => {});
    try {
      await client.connect();
      const secure = client.secureConnection;
      await client.logout();
      return secure;
    } catch {
      client.close();
      return false;
    }
  };
  // The server frees the place once its side of the last connection closed: a moment after the logout.
  for (let i = 0; i < 3; i++) await expect.poll(session).toBe(true);
});
