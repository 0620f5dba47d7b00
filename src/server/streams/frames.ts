/**
 * The `message` events of the event stream as bytes: the summary, or with
 * `?include=message` the whole message (the same object as
 * `GET /messages/{id}`) when its JSON is at most
 * {@link MAX_WHOLE_MESSAGE_EVENT_BYTES}; and the `message` events of
 * `GET /me/events`. A live message is serialized and encoded once, however
 * many streams of its inbox (or callers' feeds) are open.
 *
 * @packageDocumentation
 */
import { toMessage, toMessageSummary } from '../http/present.ts';
import { formatEvent } from '../http/sse.ts';
import { readerHtml } from '../mail/prepare.ts';
import type { HtmlReader } from '../mail/prepare.ts';
import type { MessageRecord, MessageSummaryRecord } from '../storage/contract/types.ts';

/** The largest whole message a stream event carries (its JSON, in bytes); a larger one is sent as its summary. */
export const MAX_WHOLE_MESSAGE_EVENT_BYTES = 1024 * 1024;

/** Makes the bytes of `message` events, remembering them per record. */
export interface MessageFrames {
  /**
   * The SSE frame (`event: message`, `id: <seq>`, `data: …`) of a stored
   * message: the whole message when `whole` is asked, the record has its
   * bodies and the JSON is small enough; otherwise the summary.
   */
  frame(record: MessageSummaryRecord | MessageRecord, whole: boolean): Uint8Array;
  /**
   * The `message` event of `GET /me/events` (no `id`; data `{ inboxId, message }`,
   * the message's summary): the same bytes for every caller who may see it.
   */
  feedFrame(inboxId: string, record: MessageSummaryRecord): Uint8Array;
}

const encoder = new TextEncoder();

function isWhole(record: MessageSummaryRecord | MessageRecord): record is MessageRecord {
  return 'headers' in record;
}

function frameOf(json: string, seq: number): Uint8Array {
  return encoder.encode(`event: message\nid: ${seq}\ndata: ${json}\n\n`);
}

/**
 * Creates the frame maker of one stream router. The frames of a record are
 * kept as long as the record is (a bus event's record is shared by every
 * stream of its inbox), never in module state. `html` is the node's reader
 * of HTML left to its readers (`ctx.html`).
 */
export function createMessageFrames(html: HtmlReader = readerHtml): MessageFrames {
  const summaries = new WeakMap<object, Uint8Array>();
  const wholes = new WeakMap<object, Uint8Array>();
  const feed = new WeakMap<object, { inboxId: string; bytes: Uint8Array }>();

  const summaryFrame = (record: MessageSummaryRecord): Uint8Array => {
    let bytes = summaries.get(record);
    if (bytes === undefined) {
      bytes = frameOf(JSON.stringify(toMessageSummary(record)), record.seq);
      summaries.set(record, bytes);
    }
    return bytes;
  };

  return {
    feedFrame(inboxId, record) {
      const known = feed.get(record);
      if (known !== undefined && known.inboxId === inboxId) return known.bytes;
      const bytes = encoder.encode(formatEvent('message', { inboxId, message: toMessageSummary(record) }));
      feed.set(record, { inboxId, bytes });
      return bytes;
    },
    frame(record, whole) {
      if (!whole || !isWhole(record)) return summaryFrame(record);
      let bytes = wholes.get(record);
      if (bytes === undefined) {
        const json = JSON.stringify(toMessage(record, html));
        // A UTF-16 unit is at most 3 bytes of UTF-8: no need to measure what is surely small.
        const small = json.length * 3 <= MAX_WHOLE_MESSAGE_EVENT_BYTES || Buffer.byteLength(json) <= MAX_WHOLE_MESSAGE_EVENT_BYTES;
        bytes = small ? frameOf(json, record.seq) : summaryFrame(record);
        wholes.set(record, bytes);
      }
      return bytes;
    },
  };
}
