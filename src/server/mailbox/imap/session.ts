/**
 * One IMAP4rev1 session (RFC 3501): the greeting, reading tagged commands
 * with their literals (synchronizing, and LITERAL+), the command bounds
 * (literal size, commands per minute, idle and login timeouts, failed
 * logins), and the states: not authenticated → authenticated → selected.
 * The commands themselves are `commands.ts`.
 *
 * @packageDocumentation
 */
import { LineTooLongError } from '../shared/connection.ts';
import type { MailConnection } from '../shared/connection.ts';
import { commandMeter } from '../shared/limits.ts';
import type { SessionDeps } from '../shared/limits.ts';
import { runCommand } from './commands.ts';
import { CommandSyntaxError, literalAtEnd, tokenize } from './parser.ts';
import type { Token } from './parser.ts';
import type { SelectedMailbox } from './selected.ts';
import { wireOf } from './wire.ts';
import type { ImapValue } from './wire.ts';
import type { InboxRecord } from '../../storage/contract/types.ts';

/** Text of a response line: a client's input quoted in it (a literal may hold line breaks) cannot start another line. */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}

/** Literals one command may carry. */
const MAX_LITERALS = 16;

/** A command as read: its tag, its name (upper-cased) and its arguments. */
export interface ImapCommand {
  tag: string;
  name: string;
  args: Token[];
}

/** The state of a session that the commands read and change. */
export class ImapSession {
  inbox: InboxRecord | null = null;
  selected: SelectedMailbox | null = null;
  loginFailures = 0;
  ended = false;

  readonly connection: MailConnection;
  readonly deps: SessionDeps;

  constructor(connection: MailConnection, deps: SessionDeps) {
    this.connection = connection;
    this.deps = deps;
  }

  /** The capabilities offered now (STARTTLS only before TLS and when a certificate is set). */
  capabilities(): string {
    const tls = this.deps.tls && !this.connection.secure && !this.inbox ? ' STARTTLS' : '';
    return `IMAP4rev1 LITERAL+ IDLE UNSELECT NAMESPACE ID${tls}${this.inbox ? '' : ' AUTH=PLAIN'}`;
  }

  /** Writes an untagged response. */
  untagged(values: ImapValue[]): void {
    this.connection.write(Buffer.concat([Buffer.from('* '), wireOf(values), Buffer.from('\r\n')]));
  }

  /** Writes an untagged response given as text (`OK …`, `BYE …`). */
  untaggedText(text: string): void {
    this.connection.write(`* ${oneLine(text)}\r\n`);
  }

  /** Writes the tagged completion of a command. */
  done(tag: string, status: 'OK' | 'NO' | 'BAD', text: string): void {
    this.connection.write(`${tag} ${status} ${oneLine(text)}\r\n`);
  }

  /** Says BYE and closes. */
  bye(text: string): void {
    if (this.ended) return;
    this.ended = true;
    this.untaggedText(`BYE ${text}`);
    this.selected?.close();
    this.connection.close();
  }

  /** The session is logged in: it gets the longer idle timeout. */
  loggedIn(inbox: InboxRecord): void {
    this.inbox = inbox;
    this.connection.setIdleTimeout(this.deps.limits.idleTimeoutMs);
  }
}

/** The tag of a command line: letters, digits and the like before the first space; null when there is none. */
function tagOf(line: string): string | null {
  const match = /^([!#$&'*,./0-9:;<=>?@A-Z^_`a-z|~-]+) /.exec(line);
  return match ? match[1]! : null;
}

/**
 * Reads one command with its literals. Resolves null when the connection
 * closed; answers and resolves `'skip'` for a command refused while read (a
 * literal over its bound, a line without a tag).
 */
async function readCommand(session: ImapSession): Promise<ImapCommand | null | 'skip'> {
  const { connection, deps } = session;
  const segments: string[] = [];
  const literals: Buffer[] = [];
  let literalBytes = 0;
  for (;;) {
    const line = await connection.line();
    if (line === null) return null;
    const text = line.toString('utf8');
    const tag = segments.length === 0 ? tagOf(text) : '';
    if (tag === null) {
      session.untaggedText(text.trim() === '' ? 'BAD Empty command line: send a tag, a command and its arguments' : 'BAD A command starts with a tag, e.g. "a1 CAPABILITY"');
      return 'skip';
    }
    const literal = literalAtEnd(text);
    if (!literal) {
      segments.push(text);
      break;
    }
    segments.push(text.slice(0, text.lastIndexOf('{')));
    literalBytes += literal.size;
    if (literalBytes > deps.limits.maxLiteralBytes || literals.length >= MAX_LITERALS) {
      const firstTag = tagOf(segments[0]!) ?? '*';
      const why = `[TOOBIG] Literals of one command may total ${deps.limits.maxLiteralBytes} bytes in ${MAX_LITERALS} literals (--mailbox-max-literal-bytes)`;
      if (literal.plus) session.bye(why);
      else session.done(firstTag, 'NO', why);
      return literal.plus ? null : 'skip';
    }
    if (!literal.plus && /^\S+ (?:UID )?APPEND /i.test(segments[0]!)) {
      // Refused before the client sends the message, as RFC 3501 lets a server do.
      session.done(tagOf(segments[0]!) ?? '*', 'NO', '[CANNOT] This mailbox is read and flagged only: mail arrives over SMTP');
      return 'skip';
    }
    if (!literal.plus) connection.write('+ Ready for literal data\r\n');
    const bytes = await connection.bytes(literal.size);
    if (bytes === null) return null;
    literals.push(bytes);
  }
  const tag = tagOf(segments[0]!)!;
  segments[0] = segments[0]!.slice(tag.length + 1);
  try {
    const tokens = tokenize(segments, literals);
    const first = tokens.shift();
    const name = first && !Array.isArray(first) && 'atom' in first ? first.atom.toUpperCase() : '';
    if (name === '') {
      session.done(tag, 'BAD', 'Missing command name after the tag');
      return 'skip';
    }
    return { tag, name, args: tokens };
  } catch (error) {
    if (!(error instanceof CommandSyntaxError)) throw error;
    session.done(tag, 'BAD', `${error.message}`);
    return 'skip';
  }
}

/** Runs a session until the client logs out, is closed for a bound, or the connection drops. */
async function serve(session: ImapSession): Promise<void> {
  const { deps } = session;
  const fits = commandMeter(deps.limits.commandsPerMinute, deps.now);
  session.untaggedText(`OK [CAPABILITY ${session.capabilities()}] inboxkit IMAP ready: log in with an inbox address and its inbox token (or an API key)`);
  while (!session.ended) {
    const command = await readCommand(session);
    if (command === null) break;
    if (command === 'skip') continue;
    if (!fits()) {
      session.done(command.tag, 'NO', `[LIMIT] More than ${deps.limits.commandsPerMinute} commands in a minute on this connection (--mailbox-commands-per-minute); wait and try again`);
      continue;
    }
    try {
      await runCommand(session, command);
    } catch (error) {
      if (error instanceof CommandSyntaxError) session.done(command.tag, 'BAD', error.message);
      else {
        deps.logger.error({ err: error }, 'imap: command failed');
        session.done(command.tag, 'NO', '[UNAVAILABLE] The service could not do this now; try again');
      }
    }
  }
}

/** Starts a session on an accepted connection. */
export function startImapSession(connection: MailConnection, deps: SessionDeps): { shutdown(): void } {
  const session = new ImapSession(connection, deps);
  connection.setIdleTimeout(deps.limits.loginTimeoutMs);
  connection.onTimeout = () => session.bye('Autologout: the connection was idle for too long');
  connection.onClose = () => {
    session.ended = true;
    session.selected?.close();
  };
  serve(session).then(
    () => {
      session.selected?.close();
      connection.close();
    },
    (error: unknown) => {
      if (error instanceof LineTooLongError) session.bye(`Command line longer than ${error.limit} bytes (--mailbox-max-line-bytes); closing`);
      else {
        deps.logger.error({ err: error }, 'imap: session failed');
        session.bye('Internal error; closing');
      }
    },
  );
  return { shutdown: () => session.bye('The server is shutting down') };
}
