/**
 * Twilio's list pages of the 2010-04-01 API, as `messages.list()` and
 * `messages.page()` read them: the query (`To`, `From`, `DateSent`,
 * `DateSent<`, `DateSent>`, `PageSize`, `Page`) and the page body
 * (`messages`, `page`, `page_size`, `start`, `end`, the page URIs the SDK
 * follows).
 *
 * @packageDocumentation
 */
import type { TwilioListFilter } from './twilio-ledger.ts';
import { twilioMessageResource } from './twilio.ts';
import type { TwilioMessageFields } from './twilio.ts';

/** Twilio's default and largest page sizes. */
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;

/** A list request: its filter and which page. */
export interface TwilioListQuery {
  filter: TwilioListFilter;
  page: number;
  pageSize: number;
  /** The filter's own parameters, carried into the page URIs. */
  params: Array<[string, string]>;
}

function wholeNumber(value: string | null, fallback: number): number {
  if (value === null) return fallback;
  return /^\d{1,7}$/.test(value) ? Number(value) : Number.NaN;
}

function instant(value: string): number {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Date.parse(value);
}

/** Reads a list request's query; a message naming the bad parameter when one is bad. */
export function listQueryOf(search: URLSearchParams): TwilioListQuery | string {
  const page = wholeNumber(search.get('Page'), 0);
  const pageSize = wholeNumber(search.get('PageSize'), DEFAULT_PAGE_SIZE);
  if (Number.isNaN(page)) return `Invalid Page: ${search.get('Page')} (a whole number from 0)`;
  if (Number.isNaN(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) return `Invalid PageSize: ${search.get('PageSize')} (1 to ${MAX_PAGE_SIZE})`;
  const filter: TwilioListFilter = {};
  const params: Array<[string, string]> = [];
  for (const name of ['To', 'From', 'DateSent', 'DateSent<', 'DateSent>']) {
    const value = search.get(name);
    if (value === null || value === '') continue;
    params.push([name, value]);
    if (name === 'To') filter.to = value;
    else if (name === 'From') filter.from = value;
    else {
      const at = instant(value);
      if (Number.isNaN(at)) return `Invalid ${name}: ${value} (a date, YYYY-MM-DD, or an ISO 8601 date and time)`;
      if (name === 'DateSent') filter.sentOn = new Date(at).toISOString().slice(0, 10);
      else if (name === 'DateSent<') filter.sentBefore = at;
      else filter.sentAfter = at;
    }
  }
  return { filter, page, pageSize, params };
}

/** One page of `all` (newest first), in Twilio's list body. */
export function twilioMessagePage(accountSid: string, query: TwilioListQuery, all: TwilioMessageFields[]): Record<string, unknown> {
  const base = `/2010-04-01/Accounts/${accountSid}/Messages.json`;
  const uriOf = (page: number) => `${base}?${new URLSearchParams([...query.params, ['PageSize', String(query.pageSize)], ['Page', String(page)]]).toString()}`;
  const start = query.page * query.pageSize;
  const items = all.slice(start, start + query.pageSize);
  const more = start + query.pageSize < all.length;
  return {
    messages: items.map(twilioMessageResource),
    page: query.page,
    page_size: query.pageSize,
    start,
    end: start + Math.max(items.length - 1, 0),
    uri: uriOf(query.page),
    first_page_uri: uriOf(0),
    next_page_uri: more ? uriOf(query.page + 1) : null,
    previous_page_uri: query.page > 0 ? uriOf(query.page - 1) : null,
  };
}
