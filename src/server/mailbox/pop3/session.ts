/**
 * One POP3 session (RFC 1939, with CAPA and STLS of RFC 2449 and 2595): USER
 * and PASS with the same credentials as IMAP, then the inbox's messages as
 * they were at login: STAT, LIST, UIDL (the message id: unique and never
 * reused), RETR (which marks the message seen), TOP, DELE, RSET, NOOP, and
 * QUIT, which deletes the messages marked, through the store.
 *
 * @packageDocumentation
 */
import { authenticate } from '../shared/accounts.ts';
import { LineTooLongError } from '../shared/connection.ts';
import type { MailConnection } from '../shared/connection.ts';
import { commandMeter, sleep } from '../shared/limits.ts';
import type { SessionDeps } from '../shared/limits.ts';
import { addressOf, loadEntries } from '../shared/mailbox.ts';
import type { MailEntry } from '../shared/mailbox.ts';

/** A POP3 session's state. */
interface Pop3State {
  user: string | null;
  entries: MailEntry[] | null;
  deleted: Set<number>;
  failures: number;
  ended: boolean;
}

/** A message as POP3 sends it: CRLF line ends, lines starting with "." doubled, then the ending ".". */
function dotStuffed(raw: Buffer): Buffer {
  const text = raw.toString('latin1').replace(/\r?\n/g, '\r\n');
  const body = text.replace(/^\./gm, '..');
  return Buffer.from(`${body}${body.endsWith('\r\n') || body === '' ? '' : '\r\n'}.\r\n`, 'latin1');
}

/** The header and the first `lines` lines of the body of a raw message. */
function topOf(raw: Buffer, lines: number): Buffer {
  const text = raw.toString('latin1');
  const match = /\r?\n\r?\n/.exec(text);
  if (!match) return raw;
  const head = text.slice(0, match.index + match[0].length);
  const body = text.slice(match.index + match[0].length).split(/\r?\n/).slice(0, lines).join('\r\n');
  return Buffer.from(lines > 0 ? `${head}${body}\r\n` : head, 'latin1');
}

/** What the commands of a session share. */
interface Pop3Context {
  connection: MailConnection;
  deps: SessionDeps;
  state: Pop3State;
  ok(text: string): void;
  err(text: string): void;
}

/** The message numbered `arg`, unless deleted in this session (then the -ERR is written). */
function messageAt(p: Pop3Context, arg: string | undefined): { entry: MailEntry; n: number } | null {
  const n = Number(arg);
  const entry = Number.isInteger(n) && n >= 1 ? p.state.entries![n - 1] : undefined;
  if (!entry || p.state.deleted.has(n)) {
    p.err(`No message ${arg ?? '(missing)'}${entry ? ' (deleted in this session)' : ''}: see LIST`);
    return null;
  }
  return { entry, n };
}

/** PASS: the failed-login wait, the check, then the messages as they are now. */
async function pass(p: Pop3Context, password: string): Promise<void> {
  const { deps, state, connection } = p;
  if (state.user === null) return p.err('Send USER with the inbox address first');
  await sleep(deps.guard.waitFor(connection.address));
  const inbox = await authenticate(deps, state.user, password);
  if (!inbox) {
    deps.guard.failed(connection.address);
    state.user = null;
    p.err('[AUTH] Log in with an active inbox\'s address and its inbox token, or an API key of its owner');
    if (++state.failures >= deps.limits.maxLoginFailures) {
      p.err(`Too many failed logins (${deps.limits.maxLoginFailures}, --mailbox-max-login-failures); closing`);
      state.ended = true;
    }
    return;
  }
  deps.guard.succeeded(connection.address);
  state.entries = await loadEntries(deps.store, inbox.id, deps.limits.maxMessages);
  connection.setIdleTimeout(deps.limits.idleTimeoutMs);
  p.ok(`${addressOf(inbox)} has ${state.entries.length} message${state.entries.length === 1 ? '' : 's'}`);
}

/** RETR (`lines` null, marks the message seen) and TOP. */
async function retrieve(p: Pop3Context, arg: string | undefined, lines: number | null): Promise<void> {
  const found = messageAt(p, arg);
  if (!found) return;
  const raw = await p.deps.store.findRaw(found.entry.id);
  if (!raw) return p.err('[SYS/TEMP] The message was deleted meanwhile');
  const buffer = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (lines === null && !found.entry.flags.has('\\Seen')) {
    await p.deps.store.setMessageSeen(found.entry.id, true);
    found.entry.flags.add('\\Seen');
  }
  p.ok(lines === null ? `${buffer.length} octets` : 'top of message follows');
  p.connection.write(dotStuffed(lines === null ? buffer : topOf(buffer, lines)));
  await p.connection.flushed();
}

/** The commands of a session, each answering on the connection. */
function pop3Commands(connection: MailConnection, deps: SessionDeps, state: Pop3State) {
  const ok = (text: string) => connection.write(`+OK ${text}\r\n`);
  const err = (text: string) => connection.write(`-ERR ${text}\r\n`);
  const p: Pop3Context = { connection, deps, state, ok, err };
  const message = (arg: string | undefined) => messageAt(p, arg);
  const live = () => state.entries!.map((entry, i) => ({ entry, n: i + 1 })).filter(({ n }) => !state.deleted.has(n));
  const capabilities = () => ['USER', 'TOP', 'UIDL', 'RESP-CODES', 'AUTH-RESP-CODE', 'PIPELINING', ...(deps.tls && !connection.secure && !state.entries ? ['STLS'] : []), 'IMPLEMENTATION inboxkit'];

  const transaction = async (verb: string, args: string[]): Promise<void> => {
    switch (verb) {
      case 'STAT': {
        const all = live();
        return ok(`${all.length} ${all.reduce((sum, { entry }) => sum + entry.size, 0)}`);
      }
      case 'LIST':
      case 'UIDL': {
        const value = (entry: MailEntry) => (verb === 'LIST' ? String(entry.size) : entry.id);
        if (args[0] !== undefined) {
          const found = message(args[0]);
          return found ? ok(`${found.n} ${value(found.entry)}`) : undefined;
        }
        ok(verb === 'LIST' ? 'scan listing follows' : 'unique-id listing follows');
        return connection.write(`${live().map(({ entry, n }) => `${n} ${value(entry)}\r\n`).join('')}.\r\n`);
      }
      case 'RETR':
        return retrieve(p, args[0], null);
      case 'TOP': {
        const lines = Number(args[1]);
        if (!Number.isInteger(lines) || lines < 0) return err('TOP takes a message number and a number of lines, e.g. TOP 1 10');
        return retrieve(p, args[0], lines);
      }
      case 'DELE': {
        const found = message(args[0]);
        if (!found) return;
        state.deleted.add(found.n);
        return ok(`message ${found.n} deleted at QUIT`);
      }
      case 'RSET':
        state.deleted.clear();
        return ok(`${state.entries!.length} messages kept`);
      case 'NOOP':
        return ok('');
      default:
        return err(`Unknown command ${verb}; see CAPA`);
    }
  };

  const authorization = async (verb: string, args: string[], line: string): Promise<void> => {
    switch (verb) {
      case 'USER':
        if (args.length === 0) return err('USER takes the inbox address');
        state.user = line.slice(5).trim();
        return ok('Send PASS with the inbox token (or an API key)');
      case 'PASS':
        return pass(p, line.slice(5));
      case 'STLS':
        if (!deps.tls || connection.secure) return err(deps.tls ? 'TLS is already on' : 'STLS is not offered: start the service with --smtp-tls-key/--smtp-tls-cert or --smtp-tls-self-signed');
        ok('Begin TLS negotiation');
        return connection.startTls(deps.tls, deps.limits.loginTimeoutMs).catch(() => {
          state.ended = true;
        });
      default:
        return err(`${verb} needs a login first (USER address, then PASS inbox-token)`);
    }
  };

  return { ok, err, capabilities, transaction, authorization };
}

/** Reads and answers commands until QUIT, a bound, or the connection drops. */
async function serve(connection: MailConnection, deps: SessionDeps, state: Pop3State): Promise<void> {
  const commands = pop3Commands(connection, deps, state);
  const fits = commandMeter(deps.limits.commandsPerMinute, deps.now);
  commands.ok('inboxkit POP3 ready: USER inbox address, PASS inbox token (or an API key)');
  while (!state.ended) {
    const raw = await connection.line();
    if (raw === null) return;
    const line = raw.toString('utf8');
    const [word = '', ...args] = line.split(' ').filter((part) => part !== '');
    const verb = word.toUpperCase();
    if (!fits()) {
      commands.err(`[SYS/TEMP] More than ${deps.limits.commandsPerMinute} commands in a minute on this connection (--mailbox-commands-per-minute); wait and try again`);
      continue;
    }
    if (verb === 'QUIT') {
      const gone = state.entries ? [...state.deleted].map((n) => state.entries![n - 1]!) : [];
      for (const entry of gone) await deps.store.deleteMessage(entry.id);
      commands.ok(`inboxkit POP3 closing${gone.length > 0 ? `, ${gone.length} message${gone.length === 1 ? '' : 's'} deleted` : ''}`);
      return;
    }
    if (verb === 'CAPA') {
      commands.ok('Capability list follows');
      connection.write(`${commands.capabilities().join('\r\n')}\r\n.\r\n`);
      continue;
    }
    await (state.entries ? commands.transaction(verb, args) : commands.authorization(verb, args, line));
  }
}

/** Starts a session on an accepted connection. */
export function startPop3Session(connection: MailConnection, deps: SessionDeps): { shutdown(): void } {
  const state: Pop3State = { user: null, entries: null, deleted: new Set(), failures: 0, ended: false };
  const bye = (text: string) => {
    if (connection.closed) return;
    connection.write(`-ERR ${text}\r\n`);
    connection.close();
  };
  connection.setIdleTimeout(deps.limits.loginTimeoutMs);
  connection.onTimeout = () => bye('Autologout: the connection was idle for too long (nothing deleted)');
  serve(connection, deps, state).then(
    () => connection.close(),
    (error: unknown) => {
      if (error instanceof LineTooLongError) bye(`Command line longer than ${error.limit} bytes (--mailbox-max-line-bytes); closing`);
      else {
        deps.logger.error({ err: error }, 'pop3: session failed');
        bye('[SYS/TEMP] Internal error; closing');
      }
    },
  );
  return { shutdown: () => bye('[SYS/TEMP] The server is shutting down (nothing deleted)') };
}
