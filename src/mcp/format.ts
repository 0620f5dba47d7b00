/**
 * How tool results read: compact text a model can act on, with the links and
 * the code of a message already extracted, bodies trimmed with a note, HTML
 * never shown, and every result cut at a bound.
 *
 * @packageDocumentation
 */
import { formatAddress } from '../client/internal/format.ts';
import type { Address, ExtractedLink, InboxHandle, MessageSummary, OtpCandidate, ReceivedMessage } from '../client/index.ts';
import { cameByLine } from './tools-email.ts';

/** Links listed in a message summary; more are counted, and get_link finds any of them. */
const MAX_LINKS_SHOWN = 15;
/** Characters of a link's text and of its URL shown. */
const MAX_LINK_TEXT = 80;
const MAX_URL = 400;

/** `text` cut to `max` characters, with a note that says how much was left out and how to see more. */
export function trimmed(text: string, max: number, more: string): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters not shown; ${more}]`;
}

/** A tool result's text, cut at the session's bound. */
export function bounded(text: string, max: number): string {
  return trimmed(text, max, 'the result was cut at its size bound');
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function addresses(list: Address[]): string {
  return list.map((a) => formatAddress(a)).join(', ') || '(none)';
}

/** One line per link: number, visible text, URL. */
export function linkLines(links: ExtractedLink[], max = MAX_LINKS_SHOWN): string[] {
  const lines = links.slice(0, max).map((link, i) => `  ${i + 1}. "${oneLine(link.text || link.texts[0] || '', MAX_LINK_TEXT)}" → ${oneLine(link.href, MAX_URL)}`);
  if (links.length > max) lines.push(`  … and ${links.length - max} more; call get_link with the visible text of the one you need.`);
  return lines;
}

/** The best code candidates of a message, or null. */
export function codeLine(candidates: OtpCandidate[]): string {
  const [best, ...others] = candidates;
  if (!best) return 'Code: none found (call get_code for the reasons numbers were ruled out).';
  const why = best.reasons.length > 0 ? ` (${best.reasons.slice(0, 2).join('; ')})` : '';
  const alternatives = others.length > 0 ? `; other candidates: ${others.slice(0, 3).map((c) => c.code).join(', ')}` : '';
  return `Code: ${best.code}${why}${alternatives}`;
}

/** A message as compact text: headers, code, links (as its extraction found them), attachments, then its text body trimmed. */
export function messageText(message: ReceivedMessage, maxTextChars: number, found: { links: ExtractedLink[]; otps: { candidates: OtpCandidate[] }; bounds: string[] }): string {
  const links = found.links;
  const codes = found.otps.candidates;
  const lines = [
    `Message ${message.id} in inbox ${message.inboxId} (#${message.seq})`,
    `From: ${message.from ? formatAddress(message.from) : '(none)'}`,
    `To: ${addresses(message.to)}`,
    `Subject: ${oneLine(message.subject, 300)}`,
    `Received: ${message.receivedAt}`,
    cameByLine(message.headers),
    codeLine(codes),
    ...(found.bounds.length > 0 ? [`Not everything was read: ${found.bounds.join('; ')}.`] : []),
    links.length > 0 ? `Links (${links.length}):` : 'Links: none',
    ...linkLines(links),
  ];
  if (message.attachments.length > 0) {
    lines.push(`Attachments: ${message.attachments.slice(0, 10).map((a) => `${a.filename ?? '(unnamed)'} (${a.contentType}, ${a.size} bytes)`).join(', ')}`);
  }
  const text = (message.text ?? '').trim();
  if (text === '') {
    lines.push(message.html ? 'Text: (none; the email is HTML only, and its links and code are above)' : 'Text: (empty)');
  } else {
    lines.push(`Text${text.length > maxTextChars ? ` (first ${maxTextChars} of ${text.length} characters)` : ''}:`);
    lines.push(trimmed(text, maxTextChars, 'call get_message with a larger max_text_chars to read more'));
  }
  return lines.join('\n');
}

/** A message summary on one line, for lists. */
export function summaryLine(summary: MessageSummary): string {
  const from = summary.from ? formatAddress(summary.from) : '(no sender)';
  return `- ${summary.id} #${summary.seq} ${summary.receivedAt} from ${oneLine(from, 120)}: "${oneLine(summary.subject, 160)}"${summary.hasAttachments ? ' [attachments]' : ''}`;
}

/** An inbox as a few lines; never its token. */
export function inboxText(inbox: InboxHandle): string {
  return [
    `Inbox ${inbox.id}`,
    `Address: ${inbox.address}`,
    ...(inbox.label !== null ? [`Label: ${oneLine(inbox.label, 120)}`] : []),
    `Expires: ${inbox.expiresAt ?? 'never'}`,
    `Messages: ${inbox.messageCount}`,
  ].join('\n');
}
