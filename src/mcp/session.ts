/**
 * What one MCP session holds: the client (with the session's own credential)
 * and the inboxes and messages it has met, so that an inbox created by a guest
 * session stays reachable through its inbox token, which the model never sees.
 *
 * @packageDocumentation
 */
import { NotFoundError } from '../client/index.ts';
import type { InboxHandle, InboxkitClient, Message, OtpOptions, ReceivedMessage } from '../client/index.ts';
import { AnalysisBoundError, AnalysisFailedError, createAnalysisRunner } from '../checks/analysis-runner.ts';
import type { AnalysisJob, AnalysisResults, AnalysisRunner } from '../checks/analysis-runner.ts';
import { isRawUnsupported } from '../checks/original.ts';
import { McpToolError } from './errors.ts';

/** What the tools read of a message: its links (those that match a filter, when one is given) and its code candidates. */
export type MessageAnalysis = AnalysisResults['extract'];

/** Bounds of one session, none of which a caller can lift. */
export interface SessionLimits {
  /** Inboxes a session remembers (their handles and tokens); the oldest is forgotten first. */
  maxInboxes: number;
  /** Message ids a session remembers with their inbox. */
  maxMessages: number;
  /** Longest wait, in seconds. */
  maxWaitSeconds: number;
  /** Characters of a message's text body a tool may return. */
  maxTextChars: number;
  /** Characters of any one tool result. */
  maxResultChars: number;
}

/** The default bounds. */
export const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxInboxes: 50,
  maxMessages: 500,
  maxWaitSeconds: 300,
  maxTextChars: 6000,
  maxResultChars: 12_000,
};

/** Forgets the oldest entry of a map once it holds more than `max`. */
function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as K);
}

/** One MCP session's view of the service: only what its credential (and the inboxes it created) can see. */
export class McpSession {
  /** The client, with the session's credential. */
  readonly client: InboxkitClient;
  /** The bounds of this session. */
  readonly limits: SessionLimits;
  readonly #inboxes = new Map<string, InboxHandle>();
  readonly #messageInbox = new Map<string, string>();
  readonly #runner: AnalysisRunner;
  readonly #ownsRunner: boolean;

  /**
   * A session on `client` (which it closes on {@link McpSession.close}), within
   * `limits`. Extraction runs in the workers of `runner` (the handler's one,
   * shared by its sessions); without one the session makes its own.
   */
  constructor(client: InboxkitClient, limits: SessionLimits = DEFAULT_SESSION_LIMITS, runner?: AnalysisRunner) {
    this.client = client;
    this.limits = limits;
    this.#runner = runner ?? createAnalysisRunner();
    this.#ownsRunner = runner === undefined;
  }

  /**
   * A message's links and code candidates, extracted in a worker thread that
   * a time and a heap bound can stop, so that no email can hold the service's
   * event loop; a tool error naming the bound when one stopped it. With
   * `images`, the HTML's images are listed there too.
   */
  async analyse(message: ReceivedMessage, options: { otp?: OtpOptions; links?: { text?: string; href?: string }; images?: boolean } = {}): Promise<MessageAnalysis> {
    const job = {
      kind: 'extract' as const,
      source: { html: message.html, text: message.text, subject: message.subject },
      ...(options.otp ? { otp: options.otp } : {}),
      ...(options.links ? { links: options.links } : {}),
      ...(options.images === true ? { images: true } : {}),
    };
    return this.#bounded(message, 'Reading the links and codes of', job, ' Use get_message with a smaller max_text_chars to read its text instead.');
  }

  /**
   * A message's compatibility with `clients`: its raw source is read here and
   * parsed and checked in a bounded worker (the sanitized HTML where the
   * service serves no raw sources).
   */
  async compatibility(message: ReceivedMessage, clients: string[], signal?: AbortSignal): Promise<AnalysisResults['compatibility']> {
    const raw = await message.raw(signal ? { signal } : {}).catch((error: unknown) => {
      if (isRawUnsupported(error)) return null;
      throw error;
    });
    return this.#bounded(message, 'Checking the compatibility of', { kind: 'compatibility', raw, sanitized: message.html, clients }, '');
  }

  /** Runs a job in the session's bounded workers; a tool error naming the bound that stopped it, or the analysis's own error. */
  async #bounded<K extends AnalysisJob['kind']>(message: ReceivedMessage, what: string, job: Extract<AnalysisJob, { kind: K }>, hint: string): Promise<AnalysisResults[K]> {
    try {
      return await this.#runner.run(job);
    } catch (error) {
      if (error instanceof AnalysisBoundError) throw new McpToolError(`${what} "${message.subject}" was stopped at its ${error.bound} bound: ${error.message.replace(/^analysis: /, '')}${hint}`);
      if (error instanceof AnalysisFailedError) throw new McpToolError(error.message);
      throw error;
    }
  }

  /** Keeps an inbox handle (and so its token) for later tools. */
  keepInbox(handle: InboxHandle): void {
    remember(this.#inboxes, handle.id, handle, this.limits.maxInboxes);
  }

  /** Forgets an inbox and its messages. */
  forgetInbox(inboxId: string): void {
    this.#inboxes.delete(inboxId);
    for (const [messageId, owner] of this.#messageInbox) if (owner === inboxId) this.#messageInbox.delete(messageId);
  }

  /** Remembers which inbox a message belongs to. */
  keepMessage(messageId: string, inboxId: string): void {
    remember(this.#messageInbox, messageId, inboxId, this.limits.maxMessages);
  }

  /** The handle of an inbox this session may see; a tool error naming what to do otherwise. */
  async inbox(inboxId: string, signal?: AbortSignal): Promise<InboxHandle> {
    const kept = this.#inboxes.get(inboxId);
    if (kept) return kept;
    try {
      const handle = await this.client.inboxes.get(inboxId, signal ? { signal } : {});
      this.keepInbox(handle);
      return handle;
    } catch (error) {
      if (error instanceof NotFoundError || (this.client.credential === 'none' && isUnauthorized(error))) {
        throw new McpToolError(
          `No inbox "${inboxId}" that this session can see: it does not exist, was deleted or expired, or belongs to another credential. ` +
            'Use an inbox_id returned by create_inbox (or list_inboxes), or call create_inbox for a new one.',
        );
      }
      throw error;
    }
  }

  /** A message with its extraction helpers, fetched through the inbox that owns it. */
  async message(messageId: string, signal?: AbortSignal): Promise<ReceivedMessage> {
    const options = signal ? { signal } : {};
    const inboxId = this.#messageInbox.get(messageId);
    try {
      let data: Message;
      let handle: InboxHandle;
      if (inboxId !== undefined) {
        handle = await this.inbox(inboxId, signal);
        data = await handle.message(messageId, options);
      } else {
        data = await this.client.messages.get(messageId, options);
        handle = await this.inbox(data.inboxId, signal);
      }
      this.keepMessage(messageId, data.inboxId);
      return handle.received(data);
    } catch (error) {
      if (error instanceof NotFoundError || (inboxId === undefined && this.client.credential === 'none' && isUnauthorized(error))) {
        throw new McpToolError(
          `No message "${messageId}" that this session can see: it was deleted, its inbox is gone, or it belongs to another credential. ` +
            'Use a message_id returned by wait_for_message or list_messages.',
        );
      }
      throw error;
    }
  }

  /** Releases the client's connections. */
  async close(): Promise<void> {
    this.#inboxes.clear();
    this.#messageInbox.clear();
    if (this.#ownsRunner) await this.#runner.close();
    await this.client.close();
  }
}

function isUnauthorized(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { status?: unknown }).status === 401;
}
