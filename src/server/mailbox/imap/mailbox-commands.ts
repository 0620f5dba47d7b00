/**
 * The commands of a selected mailbox: FETCH, SEARCH, STORE, EXPUNGE, CLOSE,
 * UNSELECT, CHECK, their UID forms, and IDLE (also allowed with no mailbox
 * selected). \Seen is stored (the API reads and sets it as `seen`); the other
 * flags last for the session. EXPUNGE deletes through the store, as
 * `DELETE /messages/{id}` does.
 *
 * @packageDocumentation
 */
import type { MailEntry } from '../shared/mailbox.ts';
import { createMessageReader } from '../shared/mailbox.ts';
import { fetchValues, flagList, parseFetchItems } from './fetch.ts';
import { CommandSyntaxError, sequenceSet, textOf } from './parser.ts';
import { parseSearch } from './search.ts';
import type { SelectedMailbox } from './selected.ts';
import type { ImapCommand, ImapSession } from './session.ts';
import { atom } from './wire.ts';
import type { ImapValue } from './wire.ts';

/** A flag or keyword: an atom, with a leading backslash for the system flags. */
const FLAG = /^\\?[!#$&'+.0-9:;<=>?@A-Z^_`a-z|~-]{1,64}$/;

/** The commands this module runs. */
export const MAILBOX_COMMANDS = new Set(['FETCH', 'SEARCH', 'STORE', 'EXPUNGE', 'CLOSE', 'UNSELECT', 'CHECK', 'UID', 'IDLE']);

/** The entries (with their seq numbers) a sequence set or UID set names. */
function matching(mailbox: SelectedMailbox, set: string | null, byUid: boolean): Array<{ entry: MailEntry; seq: number }> {
  if (set === null) throw new CommandSyntaxError('a sequence set is missing (e.g. 1:* )');
  const entries = mailbox.entries;
  const max = byUid ? (entries[entries.length - 1]?.uid ?? 0) : entries.length;
  // A number past the end is an error; `n:*` is not, even in an empty mailbox (clients fetch 1:* blindly).
  if (!byUid && set.split(',').some((item) => !item.includes('*') && item.split(':').some((n) => Number(n) > max))) {
    throw new CommandSyntaxError(`message number out of range: the mailbox has ${max} message${max === 1 ? '' : 's'}`);
  }
  const inSet = sequenceSet(set, max);
  return entries.map((entry, i) => ({ entry, seq: i + 1 })).filter(({ entry, seq }) => inSet(byUid ? entry.uid : seq));
}

/** Marks an entry \Seen in the store and the session; whether it changed. */
async function markSeen(session: ImapSession, entry: MailEntry, seen: boolean): Promise<boolean> {
  if (entry.flags.has('\\Seen') === seen) return false;
  await session.deps.store.setMessageSeen(entry.id, seen);
  if (seen) entry.flags.add('\\Seen');
  else entry.flags.delete('\\Seen');
  return true;
}

/** FETCH and UID FETCH. */
async function fetch(session: ImapSession, mailbox: SelectedMailbox, args: ImapCommand['args'], byUid: boolean): Promise<void> {
  const plan = parseFetchItems(args[1], byUid);
  const read = createMessageReader(session.deps.store);
  for (const { entry, seq } of matching(mailbox, textOf(args[0]), byUid)) {
    const message = plan.needsRaw ? await read(entry.id) : null;
    const changed = plan.marksSeen && !mailbox.readOnly && (await markSeen(session, entry, true));
    const values: ImapValue[] = fetchValues(plan, entry, message);
    if (changed && !plan.items.some((i) => i.kind === 'simple' && i.name === 'FLAGS')) values.push(atom('FLAGS'), flagList(entry));
    session.untagged([seq, atom('FETCH'), values]);
    await session.connection.flushed();
  }
}

/** SEARCH and UID SEARCH. */
async function search(session: ImapSession, mailbox: SelectedMailbox, args: ImapCommand['args'], byUid: boolean): Promise<void> {
  const entries = mailbox.entries;
  const plan = parseSearch(args, { seq: entries.length, uid: entries[entries.length - 1]?.uid ?? 0 });
  const found: number[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const record = plan.needsRecord ? await session.deps.store.findMessage(entry.id) : null;
    if (plan.test({ entry, seq: i + 1, record })) found.push(byUid ? entry.uid : i + 1);
  }
  session.untagged([atom('SEARCH'), ...found]);
}

/** STORE and UID STORE: FLAGS, +FLAGS, -FLAGS, each .SILENT or not. */
async function store(session: ImapSession, mailbox: SelectedMailbox, args: ImapCommand['args'], byUid: boolean): Promise<void> {
  const action = (textOf(args[1]) ?? '').toUpperCase();
  const match = /^([+-]?)FLAGS(\.SILENT)?$/.exec(action);
  if (!match) throw new CommandSyntaxError('STORE takes FLAGS, +FLAGS or -FLAGS (each may end in .SILENT) and a list of flags');
  const flagTokens = Array.isArray(args[2]) ? args[2] : args.slice(2);
  const given = flagTokens.map((t) => textOf(t));
  const bad = given.find((f) => f === null || !FLAG.test(f));
  if (bad !== undefined) throw new CommandSyntaxError(`STORE: ${bad === null ? 'a list' : JSON.stringify(bad)} is not a flag (give \\Seen, \\Deleted, \\Flagged, \\Answered, \\Draft or a keyword atom)`);
  const flags = (given as string[]).filter((f) => f.toLowerCase() !== '\\recent').map((f) => (f.startsWith('\\') ? `\\${f[1]!.toUpperCase()}${f.slice(2).toLowerCase()}` : f));
  for (const { entry, seq } of matching(mailbox, textOf(args[0]), byUid)) {
    const next = new Set(match[1] === '' ? flags : entry.flags);
    if (match[1] === '+') flags.forEach((f) => next.add(f));
    if (match[1] === '-') flags.forEach((f) => next.delete(f));
    await markSeen(session, entry, next.has('\\Seen'));
    entry.flags.clear();
    next.forEach((f) => entry.flags.add(f));
    if (!match[2]) session.untagged([seq, atom('FETCH'), [...(byUid ? [atom('UID'), entry.uid] : []), atom('FLAGS'), flagList(entry)]]);
  }
}

/** IDLE: `+ idling`, new mail written as it is committed, until the client sends DONE. */
async function idle(session: ImapSession, tag: string): Promise<void> {
  const mailbox = session.selected;
  session.connection.write('+ idling\r\n');
  if (mailbox) {
    mailbox.idling = true;
    await mailbox.refresh();
  }
  const line = await session.connection.line();
  if (mailbox) mailbox.idling = false;
  if (line === null) return;
  if (line.toString('latin1').trim().toUpperCase() !== 'DONE') session.done(tag, 'BAD', 'IDLE ends with DONE');
  else session.done(tag, 'OK', 'IDLE terminated');
}

/** Runs a mailbox command (see the module's comment). */
export async function runMailboxCommand(session: ImapSession, command: ImapCommand): Promise<void> {
  if (command.name === 'IDLE') return idle(session, command.tag);
  const mailbox = session.selected;
  if (!mailbox) {
    session.done(command.tag, 'BAD', `${command.name} needs a selected mailbox: SELECT INBOX first`);
    return;
  }
  const byUid = command.name === 'UID';
  const name = byUid ? (textOf(command.args[0]) ?? '').toUpperCase() : command.name;
  const args = byUid ? command.args.slice(1) : command.args;
  const label = `${byUid ? 'UID ' : ''}${name}`;
  switch (name) {
    case 'FETCH':
      await fetch(session, mailbox, args, byUid);
      break;
    case 'SEARCH':
      await search(session, mailbox, args, byUid);
      break;
    case 'STORE':
      if (mailbox.readOnly) return session.done(command.tag, 'NO', 'The mailbox is open read-only (EXAMINE): SELECT it to change flags');
      await store(session, mailbox, args, byUid);
      break;
    case 'EXPUNGE': {
      if (mailbox.readOnly) return session.done(command.tag, 'NO', 'The mailbox is open read-only (EXAMINE): SELECT it to expunge');
      const only = byUid ? sequenceSet(textOf(args[0]) ?? '', mailbox.maxUid()) : undefined;
      await mailbox.expunge(true, only ? (e) => only(e.uid) : undefined);
      break;
    }
    case 'CHECK':
      await mailbox.refresh();
      break;
    case 'CLOSE':
    case 'UNSELECT':
      if (name === 'CLOSE' && !mailbox.readOnly) await mailbox.expunge(false);
      mailbox.close();
      session.selected = null;
      return session.done(command.tag, 'OK', `${label} completed`);
    default:
      return session.done(command.tag, 'BAD', `Unknown command ${label}`);
  }
  await mailbox.announce();
  session.done(command.tag, 'OK', `${label} completed`);
}
