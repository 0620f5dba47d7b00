/**
 * The selected mailbox of an IMAP session: its entries in seq order, kept
 * current by the service's event bus (the same live delivery as the event
 * streams, on every node of a team service): a committed message becomes a
 * pending `* N EXISTS`, written after the command in progress or at once
 * during IDLE. Deletions by others (the API, another session) and \Seen set
 * elsewhere are found when the client asks (NOOP, CHECK, IDLE).
 *
 * @packageDocumentation
 */
import type { BusEvent } from '../../events/types.ts';
import type { InboxRecord } from '../../storage/contract/types.ts';
import { entryOf, loadEntries, seenIds } from '../shared/mailbox.ts';
import type { MailEntry } from '../shared/mailbox.ts';
import type { SessionDeps } from '../shared/limits.ts';
import { flagList } from './fetch.ts';
import { atom } from './wire.ts';
import type { ImapValue } from './wire.ts';

/** How a selected mailbox speaks to its client. */
export interface MailboxOutput {
  /** Writes an untagged response (`* …`). */
  untagged(values: ImapValue[]): void;
  /** The inbox is gone: say BYE and close. */
  gone(why: string): void;
}

/** A selected mailbox (see the module's comment). */
export class SelectedMailbox {
  entries: MailEntry[] = [];
  private pending: MailEntry[] = [];
  private reloadNeeded = false;
  private unsubscribe: () => void = () => {};
  /** Set while an IDLE runs: new mail is written at once. */
  idling = false;

  readonly inbox: InboxRecord;
  readonly readOnly: boolean;
  private readonly deps: SessionDeps;
  private readonly output: MailboxOutput;

  private constructor(inbox: InboxRecord, readOnly: boolean, deps: SessionDeps, output: MailboxOutput) {
    this.inbox = inbox;
    this.readOnly = readOnly;
    this.deps = deps;
    this.output = output;
  }

  /** Selects an inbox: subscribes first, then lists, so nothing committed between is missed. */
  static async open(inbox: InboxRecord, readOnly: boolean, deps: SessionDeps, output: MailboxOutput): Promise<SelectedMailbox> {
    const mailbox = new SelectedMailbox(inbox, readOnly, deps, output);
    mailbox.unsubscribe = deps.bus.subscribe(inbox.id, (event) => mailbox.heard(event));
    mailbox.entries = await loadEntries(deps.store, inbox.id, deps.limits.maxMessages);
    // Mail committed while the list was read: only what the list does not hold yet.
    const listed = mailbox.entries[mailbox.entries.length - 1]?.uid ?? 0;
    mailbox.pending = mailbox.pending.filter((e) => e.uid > listed);
    return mailbox;
  }

  /** The highest UID known (listed or pending). */
  maxUid(): number {
    const last = this.pending[this.pending.length - 1] ?? this.entries[this.entries.length - 1];
    return last?.uid ?? 0;
  }

  private heard(event: BusEvent): void {
    if (event.type === 'message') {
      if (event.message.seq <= this.maxUid()) return;
      if (this.pending.length >= this.deps.limits.maxMessages) this.reloadNeeded = true;
      else this.pending.push(entryOf(event.message, false));
    } else if (event.type === 'resync') {
      this.reloadNeeded = true;
    } else if (event.type === 'inbox.deleted' || event.type === 'inbox.expired') {
      this.output.gone(event.type === 'inbox.deleted' ? 'the inbox was deleted' : 'the inbox expired');
      return;
    } else return;
    if (this.idling) void this.announce().catch((err: unknown) => this.deps.logger.warn({ err }, 'imap: announcing new mail failed'));
  }

  /** Writes `* N EXISTS` for the mail that arrived since the last time (after a catch-up read when the bus may have lost some). */
  async announce(): Promise<void> {
    if (this.reloadNeeded) {
      this.reloadNeeded = false;
      const after = this.entries[this.entries.length - 1]?.uid ?? 0;
      this.pending = await loadEntries(this.deps.store, this.inbox.id, this.deps.limits.maxMessages, after);
    }
    if (this.pending.length === 0) return;
    const room = Math.max(0, this.deps.limits.maxMessages - this.entries.length);
    this.entries.push(...this.pending.splice(0).slice(0, room));
    this.output.untagged([this.entries.length, atom('EXISTS')]);
  }

  /** Finds what changed elsewhere: `* n EXPUNGE` for messages deleted, `* n FETCH (FLAGS …)` for \Seen changed, then new mail. */
  async refresh(): Promise<void> {
    const current = await loadEntries(this.deps.store, this.inbox.id, this.deps.limits.maxMessages);
    const present = new Set(current.map((e) => e.id));
    for (let i = this.entries.length - 1; i >= 0; i--) {
      if (present.has(this.entries[i]!.id)) continue;
      this.entries.splice(i, 1);
      this.output.untagged([i + 1, atom('EXPUNGE')]);
    }
    const seen = await seenIds(this.deps.store, this.inbox.id, this.deps.limits.maxMessages);
    this.entries.forEach((entry, i) => {
      if (entry.flags.has('\\Seen') === seen.has(entry.id)) return;
      if (seen.has(entry.id)) entry.flags.add('\\Seen');
      else entry.flags.delete('\\Seen');
      this.output.untagged([i + 1, atom('FETCH'), [atom('FLAGS'), flagList(entry)]]);
    });
    const known = this.maxUid();
    for (const entry of current) if (entry.uid > known) this.pending.push(entry);
    await this.announce();
  }

  /** Deletes the messages flagged \Deleted through the store; `report` writes `* n EXPUNGE` for each. Returns their UIDs. */
  async expunge(report: boolean, only?: (entry: MailEntry) => boolean): Promise<number[]> {
    const gone: number[] = [];
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (!entry.flags.has('\\Deleted') || (only && !only(entry))) continue;
      await this.deps.store.deleteMessage(entry.id);
      this.entries.splice(i, 1);
      gone.push(entry.uid);
      if (report) this.output.untagged([i + 1, atom('EXPUNGE')]);
    }
    return gone;
  }

  /** Stops listening to the bus. */
  close(): void {
    this.unsubscribe();
    this.idling = false;
  }
}
