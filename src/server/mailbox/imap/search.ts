/**
 * SEARCH (RFC 3501 §6.4.4): the criteria read into one predicate over a
 * mailbox entry, with the stored message (decoded subject, addresses,
 * headers and text, as the API reads it) loaded only for the criteria that
 * look inside it. Text criteria match case-insensitively as substrings.
 *
 * @packageDocumentation
 */
import type { AddressRecord, MessageRecord } from '../../storage/contract/types.ts';
import type { MailEntry } from '../shared/mailbox.ts';
import { CommandSyntaxError, imapDate, sequenceSet, textOf } from './parser.ts';
import type { Token } from './parser.ts';

/** What a criterion is evaluated against: the entry, its seq number, the mailbox's size, and the stored message when needed. */
interface Subject {
  entry: MailEntry;
  seq: number;
  record: MessageRecord | null;
}

type Predicate = (subject: Subject) => boolean;

/** A parsed SEARCH: the predicate, and whether it needs the stored message. */
export interface SearchPlan {
  test: Predicate;
  needsRecord: boolean;
}

const DAY = 86_400_000;

const FLAG_KEYS: Record<string, [string, boolean]> = {
  ANSWERED: ['\\Answered', true], UNANSWERED: ['\\Answered', false], DELETED: ['\\Deleted', true], UNDELETED: ['\\Deleted', false],
  DRAFT: ['\\Draft', true], UNDRAFT: ['\\Draft', false], FLAGGED: ['\\Flagged', true], UNFLAGGED: ['\\Flagged', false],
  SEEN: ['\\Seen', true], UNSEEN: ['\\Seen', false],
};

function contains(haystack: string | null | undefined, needle: string): boolean {
  return (haystack ?? '').toLowerCase().includes(needle.toLowerCase());
}

function addresses(list: ReadonlyArray<AddressRecord | null>): string {
  return list.filter((a): a is AddressRecord => a !== null).map((a) => `${a.name} <${a.address}>`).join(', ');
}

/** The Date header of a stored message as a UTC day start, or null. */
function sentDay(record: MessageRecord | null): number | null {
  const date = record?.headers['date'];
  const time = date ? Date.parse(date) : Number.NaN;
  return Number.isNaN(time) ? null : Math.floor(time / DAY) * DAY;
}

/** A reader over the tokens of a SEARCH. */
class Criteria {
  i = 0;
  needsRecord = false;
  private readonly tokens: Token[];
  private readonly max: { seq: number; uid: number };
  constructor(tokens: Token[], max: { seq: number; uid: number }) {
    this.tokens = tokens;
    this.max = max;
  }

  private arg(key: string): string {
    const value = textOf(this.tokens[this.i++]);
    if (value === null) throw new CommandSyntaxError(`SEARCH ${key} needs a value`);
    return value;
  }

  private text(key: string, read: (r: MessageRecord) => string | null | undefined): Predicate {
    const needle = this.arg(key);
    this.needsRecord = true;
    return ({ record }) => record !== null && contains(read(record), needle);
  }

  /** All criteria up to the end of the tokens: they must all match. */
  all(): Predicate {
    const tests: Predicate[] = [];
    while (this.i < this.tokens.length) tests.push(this.one());
    return (s) => tests.every((t) => t(s));
  }

  /** One criterion. */
  one(): Predicate {
    const token = this.tokens[this.i++];
    if (Array.isArray(token)) {
      const inner = new Criteria(token, this.max);
      const test = inner.all();
      this.needsRecord ||= inner.needsRecord;
      return test;
    }
    const key = (textOf(token) ?? '').toUpperCase();
    const flag = FLAG_KEYS[key];
    if (flag) return ({ entry }) => entry.flags.has(flag[0]) === flag[1];
    switch (key) {
      case 'ALL':
      case 'OLD':
        return () => true;
      case 'NEW':
      case 'RECENT':
        return () => false;
      case 'KEYWORD': {
        const k = this.arg(key);
        return ({ entry }) => entry.flags.has(k);
      }
      case 'UNKEYWORD': {
        const k = this.arg(key);
        return ({ entry }) => !entry.flags.has(k);
      }
      case 'FROM':
        return this.text(key, (r) => addresses([r.from]));
      case 'TO':
        return this.text(key, (r) => addresses(r.to));
      case 'CC':
        return this.text(key, (r) => addresses(r.cc));
      case 'BCC':
        return this.text(key, (r) => r.headers['bcc']);
      case 'SUBJECT':
        return this.text(key, (r) => r.subject);
      case 'BODY':
        return this.text(key, (r) => `${r.text ?? ''}\n${r.rawHtml ?? ''}`);
      case 'TEXT':
        return this.text(key, (r) => `${Object.entries(r.headers).map(([k, v]) => `${k}: ${v}`).join('\n')}\n${r.text ?? ''}\n${r.rawHtml ?? ''}`);
      case 'HEADER': {
        const name = this.arg(key).toLowerCase();
        const needle = this.arg(key);
        this.needsRecord = true;
        return ({ record }) => record !== null && name in record.headers && contains(record.headers[name], needle);
      }
      case 'BEFORE':
      case 'ON':
      case 'SINCE': {
        const day = imapDate(this.arg(key));
        return ({ entry }) => (key === 'BEFORE' ? entry.receivedAt < day : key === 'SINCE' ? entry.receivedAt >= day : entry.receivedAt >= day && entry.receivedAt < day + DAY);
      }
      case 'SENTBEFORE':
      case 'SENTON':
      case 'SENTSINCE': {
        const day = imapDate(this.arg(key));
        this.needsRecord = true;
        return ({ record }) => {
          const sent = sentDay(record);
          return sent !== null && (key === 'SENTBEFORE' ? sent < day : key === 'SENTSINCE' ? sent >= day : sent === day);
        };
      }
      case 'LARGER':
      case 'SMALLER': {
        const n = Number(this.arg(key));
        if (!Number.isInteger(n)) throw new CommandSyntaxError(`SEARCH ${key} needs a number of bytes`);
        return ({ entry }) => (key === 'LARGER' ? entry.size > n : entry.size < n);
      }
      case 'UID': {
        const inSet = sequenceSet(this.arg(key), this.max.uid);
        return ({ entry }) => inSet(entry.uid);
      }
      case 'NOT': {
        const inner = this.one();
        return (s) => !inner(s);
      }
      case 'OR': {
        const a = this.one();
        const b = this.one();
        return (s) => a(s) || b(s);
      }
      default: {
        if (/^[\d*:,]+$/.test(key)) {
          const inSet = sequenceSet(key, this.max.seq);
          return ({ seq }) => inSet(seq);
        }
        throw new CommandSyntaxError(`SEARCH criterion ${key || '(missing)'} is not one this server knows`);
      }
    }
  }
}

/**
 * The plan of a SEARCH from its tokens (after the command name); a leading
 * `CHARSET` must be UTF-8 or US-ASCII.
 *
 * @throws CommandSyntaxError for an unknown criterion or a missing value.
 */
export function parseSearch(tokens: Token[], max: { seq: number; uid: number }): SearchPlan {
  let rest = tokens;
  if ((textOf(tokens[0]) ?? '').toUpperCase() === 'CHARSET') {
    const charset = (textOf(tokens[1]) ?? '').toUpperCase();
    if (charset !== 'UTF-8' && charset !== 'US-ASCII') throw new CommandSyntaxError(`[BADCHARSET (UTF-8 US-ASCII)] charset ${charset} is not supported`);
    rest = tokens.slice(2);
  }
  if (rest.length === 0) throw new CommandSyntaxError('SEARCH needs criteria, e.g. ALL or UNSEEN');
  const criteria = new Criteria(rest, max);
  const test = criteria.all();
  return { test, needsRecord: criteria.needsRecord };
}

export type { Subject as SearchSubject };
