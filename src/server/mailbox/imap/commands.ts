/**
 * The IMAP commands: what each state allows, and each command's answer.
 * Mailbox commands (FETCH, SEARCH, STORE, EXPUNGE, IDLE) are `mailbox-commands.ts`.
 *
 * @packageDocumentation
 */
import { authenticate } from '../shared/accounts.ts';
import { addressOf, loadEntries, uidValidityOf } from '../shared/mailbox.ts';
import { sleep } from '../shared/limits.ts';
import { runMailboxCommand, MAILBOX_COMMANDS } from './mailbox-commands.ts';
import { CommandSyntaxError, textOf } from './parser.ts';
import type { Token } from './parser.ts';
import { SelectedMailbox } from './selected.ts';
import type { ImapCommand, ImapSession } from './session.ts';
import { atom } from './wire.ts';


/** Commands of a writable mail store this service does not offer (mail arrives over SMTP only). */
const NOT_OFFERED = new Set(['APPEND', 'CREATE', 'DELETE', 'RENAME', 'COPY', 'MOVE']);

/** The one mailbox of an account. */
const INBOX = 'INBOX';

/** The arguments of a command as texts; a list or a missing one is a syntax error. */
function texts(command: ImapCommand, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const value = textOf(command.args[i]);
    if (value === null) throw new CommandSyntaxError(`${command.name} needs ${count} argument${count === 1 ? '' : 's'}`);
    out.push(value);
  }
  return out;
}

/** Whether an IMAP LIST pattern (`*`, `%`, `INBOX`, `In*`) matches INBOX. */
function matchesInbox(reference: string, pattern: string): boolean {
  const full = `${reference}${pattern}`;
  const regex = new RegExp(`^${full.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/[*%]/g, '.*')}$`, 'i');
  return regex.test(INBOX);
}

/** LOGIN and AUTHENTICATE's common end: the failed-login wait, the check, the answer. */
async function logIn(session: ImapSession, tag: string, username: string, password: string): Promise<void> {
  const { deps, connection } = session;
  await sleep(deps.guard.waitFor(connection.address));
  const inbox = await authenticate(deps, username, password);
  if (!inbox) {
    deps.guard.failed(connection.address);
    session.loginFailures++;
    session.done(tag, 'NO', '[AUTHENTICATIONFAILED] Log in with an active inbox\'s address and its inbox token, or an API key of its owner');
    if (session.loginFailures >= deps.limits.maxLoginFailures) session.bye(`Too many failed logins (${deps.limits.maxLoginFailures}, --mailbox-max-login-failures); closing`);
    return;
  }
  deps.guard.succeeded(connection.address);
  session.loggedIn(inbox);
  session.done(tag, 'OK', `[CAPABILITY ${session.capabilities()}] Logged in to ${addressOf(inbox)}`);
}

/** AUTHENTICATE PLAIN, with the initial response or after a `+`. */
async function authenticatePlain(session: ImapSession, command: ImapCommand): Promise<void> {
  const mechanism = (textOf(command.args[0]) ?? '').toUpperCase();
  if (mechanism !== 'PLAIN') {
    session.done(command.tag, 'NO', `[CANNOT] Mechanism ${mechanism || '(none)'} is not offered; use AUTHENTICATE PLAIN or LOGIN`);
    return;
  }
  let response = textOf(command.args[1]);
  if (response === null) {
    session.connection.write('+ \r\n');
    const line = await session.connection.line();
    if (line === null) return;
    response = line.toString('latin1').trim();
  }
  if (response === '*') {
    session.done(command.tag, 'BAD', 'AUTHENTICATE cancelled');
    return;
  }
  const [authzid = '', authcid = '', password = ''] = Buffer.from(response, 'base64').toString('utf8').split('\0');
  await logIn(session, command.tag, authzid !== '' && authzid !== authcid ? '' : authcid, password);
}

/** STARTTLS: the OK, then the TLS handshake on the same connection. */
async function startTls(session: ImapSession, tag: string): Promise<void> {
  const { deps, connection } = session;
  if (!deps.tls || connection.secure) {
    session.done(tag, 'NO', deps.tls ? 'TLS is already on' : 'STARTTLS is not offered: start the service with --smtp-tls-key/--smtp-tls-cert or --smtp-tls-self-signed');
    return;
  }
  if (connection.hasPendingInput()) {
    session.done(tag, 'BAD', 'Nothing may follow STARTTLS before the TLS handshake');
    return;
  }
  session.done(tag, 'OK', 'Begin TLS negotiation now');
  await connection.startTls(deps.tls, deps.limits.loginTimeoutMs).catch(() => session.bye('TLS handshake failed'));
}

/** SELECT and EXAMINE: the mailbox's state, then the selected state. */
async function select(session: ImapSession, command: ImapCommand, readOnly: boolean): Promise<void> {
  const [name] = texts(command, 1);
  session.selected?.close();
  session.selected = null;
  if (name!.toUpperCase() !== INBOX) {
    session.done(command.tag, 'NO', `[NONEXISTENT] No mailbox ${JSON.stringify(name)}: each inbox is one account with one mailbox, INBOX`);
    return;
  }
  const inbox = session.inbox!;
  const mailbox = await SelectedMailbox.open(inbox, readOnly, session.deps, { untagged: (v) => session.untagged(v), gone: (why) => session.bye(`${why}; closing`) });
  session.selected = mailbox;
  const firstUnseen = mailbox.entries.findIndex((e) => !e.flags.has('\\Seen'));
  session.untaggedText('FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)');
  session.untaggedText(`OK [PERMANENTFLAGS (${readOnly ? '' : '\\Seen \\Deleted \\Answered \\Flagged \\Draft'})] \\Seen is kept; the other flags last for the session`);
  session.untagged([mailbox.entries.length, atom('EXISTS')]);
  session.untagged([0, atom('RECENT')]);
  if (firstUnseen >= 0) session.untaggedText(`OK [UNSEEN ${firstUnseen + 1}] First unseen message`);
  session.untaggedText(`OK [UIDVALIDITY ${uidValidityOf(inbox)}] UIDs are the messages' seq numbers`);
  session.untaggedText(`OK [UIDNEXT ${Math.max(inbox.lastSeq, mailbox.maxUid()) + 1}] Next UID`);
  session.done(command.tag, 'OK', `[${readOnly ? 'READ-ONLY' : 'READ-WRITE'}] ${command.name} completed`);
}

/** STATUS INBOX (items). */
async function status(session: ImapSession, command: ImapCommand): Promise<void> {
  const [name] = texts(command, 1);
  const items = command.args[1];
  if (!Array.isArray(items)) throw new CommandSyntaxError('STATUS needs a list of items, e.g. (MESSAGES UNSEEN UIDNEXT)');
  if (name!.toUpperCase() !== INBOX) {
    session.done(command.tag, 'NO', `[NONEXISTENT] No mailbox ${JSON.stringify(name)}: the one mailbox is INBOX`);
    return;
  }
  const inbox = (await session.deps.store.findInboxById(session.inbox!.id)) ?? session.inbox!;
  const entries = await loadEntries(session.deps.store, inbox.id, session.deps.limits.maxMessages);
  const values: Record<string, number> = {
    MESSAGES: entries.length,
    RECENT: 0,
    UIDNEXT: inbox.lastSeq + 1,
    UIDVALIDITY: uidValidityOf(inbox),
    UNSEEN: entries.filter((e) => !e.flags.has('\\Seen')).length,
  };
  const out = items.map((t: Token) => (textOf(t) ?? '').toUpperCase()).flatMap((item) => {
    if (!(item in values)) throw new CommandSyntaxError(`STATUS item ${item} is not one of MESSAGES, RECENT, UIDNEXT, UIDVALIDITY, UNSEEN`);
    return [atom(item), values[item]!];
  });
  session.untagged([atom('STATUS'), atom(INBOX), out]);
  session.done(command.tag, 'OK', 'STATUS completed');
}

/** LIST and LSUB: INBOX when the pattern matches it; the hierarchy delimiter for an empty pattern. */
function list(session: ImapSession, command: ImapCommand): void {
  const [reference, pattern] = texts(command, 2);
  if (pattern === '') session.untagged([atom(command.name), [atom('\\Noselect')], '/', '']);
  else if (matchesInbox(reference!, pattern!)) session.untagged([atom(command.name), [atom('\\HasNoChildren')], '/', atom(INBOX)]);
  session.done(command.tag, 'OK', `${command.name} completed`);
}

/** Commands of any state. */
async function anyState(session: ImapSession, command: ImapCommand): Promise<boolean> {
  switch (command.name) {
    case 'CAPABILITY':
      session.untaggedText(`CAPABILITY ${session.capabilities()}`);
      session.done(command.tag, 'OK', 'CAPABILITY completed');
      return true;
    case 'NOOP':
      if (session.selected) await session.selected.refresh();
      session.done(command.tag, 'OK', 'NOOP completed');
      return true;
    case 'LOGOUT':
      session.untaggedText('BYE Logging out');
      session.done(command.tag, 'OK', 'LOGOUT completed');
      session.ended = true;
      return true;
    case 'ID':
      session.untagged([atom('ID'), ['name', 'inboxkit']]);
      session.done(command.tag, 'OK', 'ID completed');
      return true;
    default:
      return false;
  }
}

/** Commands before login. */
async function notAuthenticated(session: ImapSession, command: ImapCommand): Promise<void> {
  switch (command.name) {
    case 'STARTTLS':
      return startTls(session, command.tag);
    case 'LOGIN': {
      const [user, password] = texts(command, 2);
      return logIn(session, command.tag, user!, password!);
    }
    case 'AUTHENTICATE':
      return authenticatePlain(session, command);
    default:
      session.done(command.tag, 'BAD', `${command.name} needs a login first (LOGIN address inbox-token)`);
  }
}

/** Commands after login. */
async function authenticated(session: ImapSession, command: ImapCommand): Promise<void> {
  switch (command.name) {
    case 'SELECT':
    case 'EXAMINE':
      return select(session, command, command.name === 'EXAMINE');
    case 'LIST':
    case 'LSUB':
      return list(session, command);
    case 'STATUS':
      return status(session, command);
    case 'NAMESPACE':
      session.untaggedText('NAMESPACE (("" "/")) NIL NIL');
      return session.done(command.tag, 'OK', 'NAMESPACE completed');
    case 'SUBSCRIBE':
    case 'UNSUBSCRIBE':
      return session.done(command.tag, 'OK', `${command.name} completed (INBOX is always listed)`);
    case 'LOGIN':
    case 'AUTHENTICATE':
    case 'STARTTLS':
      return session.done(command.tag, 'BAD', `Already logged in to ${addressOf(session.inbox!)}`);
    default:
      if (NOT_OFFERED.has(command.name) || (command.name === 'UID' && ['COPY', 'MOVE'].includes((textOf(command.args[0]) ?? '').toUpperCase()))) {
        return session.done(command.tag, 'NO', '[CANNOT] This mailbox is read and flagged only: mail arrives over SMTP, and there are no other folders');
      }
      if (MAILBOX_COMMANDS.has(command.name)) return runMailboxCommand(session, command);
      session.done(command.tag, 'BAD', `Unknown command ${command.name}`);
  }
}

/** Runs one command in the session's state. */
export async function runCommand(session: ImapSession, command: ImapCommand): Promise<void> {
  if (await anyState(session, command)) return;
  if (!session.inbox) return notAuthenticated(session, command);
  return authenticated(session, command);
}
