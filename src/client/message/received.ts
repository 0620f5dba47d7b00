/**
 * {@link ReceivedMessage}: a whole message as the waits return it, with link
 * and one-time-code extraction and the calls that act on it.
 *
 * @packageDocumentation
 */
import { inspect } from 'node:util';
import type { Address, Attachment, DeletedMessage, Envelope, Message } from '../../wire/schemas.ts';
import type { SpamCheck } from '../../wire/spam-check.ts';
import { extractLinks, extractOtp, extractOtps, findLink } from '../../extract/index.ts';
import type { ExtractedLink, LinkFilterArg, OtpCandidates, OtpOptions } from '../../extract/index.ts';
import { throwFromCall } from '../../errors/call-site.ts';
import { InboxkitError } from '../core/errors.ts';
import type { AttachmentDownload, RawMessage } from '../core/types.ts';
import { messageCompatibility } from '../../checks/compatibility.ts';
import type { CompatibilityReport, EmailClientNames } from '../../checks/compatibility.ts';
import { authenticationSession, runAuthentication, withoutLookups } from '../../checks/authentication.ts';
import type { AuthenticationReport, SessionOverrides } from '../../checks/authentication.ts';
import { checkContent } from '../../checks/content-checks.ts';
import type { ContentCheckOptions, ContentFinding } from '../../checks/content-checks.ts';
import { MessageOriginal } from '../../checks/original.ts';
import type { ParsedOriginal } from '../../checks/original.ts';

/** The parts of a message as it was sent, from `message.original()`. */
export type OriginalParts = ParsedOriginal;
import type { RequestOptions } from '../core/types.ts';

/**
 * Options of `message.authentication()`: the test DNS and the SMTP session's
 * overrides, with a request's options for reading the raw source.
 */
export interface AuthenticationOptions extends SessionOverrides, RequestOptions {}

/**
 * The calls a {@link ReceivedMessage} makes about itself; an `InboxHandle` is one
 * (it authorises them with the inbox's token where needed).
 */
export interface MessageOwner {
  /** The raw source of a message. */
  raw(messageId: string, options?: RequestOptions): PromiseLike<RawMessage>;
  /** An attachment's bytes. */
  downloadAttachment(messageId: string, attachmentId: string, options?: RequestOptions): PromiseLike<AttachmentDownload>;
  /** Deletes a message. */
  deleteMessage(messageId: string, options?: RequestOptions): PromiseLike<DeletedMessage>;
  /** Scores a message with the service's spam scanner (absent on owners that cannot). */
  spamCheck?(messageId: string, options?: RequestOptions): PromiseLike<SpamCheck>;
}

/** An attachment's bytes, as `message.attachment()` returns them. */
export interface ReceivedAttachment {
  /** The attachment's id. */
  id: string;
  /** File name as the mail gave it. */
  filename: string;
  /** MIME type, e.g. `application/pdf`. */
  contentType: string;
  /** The bytes, exactly as attached (the same name `attachments.download()` uses). */
  bytes: Uint8Array;
  /** Number of bytes. */
  size: number;
}

/**
 * A received message: every field of the wire `Message` (the original is in
 * `data`), plus `links()`, `link()`, `otp()`, `otps()` (read from the sanitized
 * HTML, with the text body as fallback), `raw()`, `attachment()` and `delete()`.
 *
 * @example
 * ```ts
 * const message = await inbox.waitForMessage({ subject: /confirm/i });
 * await page.goto(message.link({ text: /confirm/i }).href);
 * const code = message.otp();
 * ```
 */
export class ReceivedMessage {
  /** The message as the server sent it (including fields this client version does not know). */
  readonly data: Message;
  /** Message id. */
  readonly id: string;
  /** Id of the inbox it arrived in. */
  readonly inboxId: string;
  /** Position in the inbox: 1, 2, 3 … in arrival order. */
  readonly seq: number;
  /** The sender, or `null` when the mail had none. */
  readonly from: Address | null;
  /** `To` recipients. */
  readonly to: Address[];
  /** `Cc` recipients. */
  readonly cc: Address[];
  /** `Reply-To` addresses. */
  readonly replyTo: Address[];
  /** Subject line (empty string when there was none). */
  readonly subject: string;
  /** First 200 characters of the text body. */
  readonly preview: string;
  /** The plain-text body, or `null`. */
  readonly text: string | null;
  /** The sanitized HTML body, or `null`. */
  readonly html: string | null;
  /** Original header names (lower-cased) to values. */
  readonly headers: Record<string, string>;
  /** Attachments' metadata; `attachment()` downloads one. */
  readonly attachments: Attachment[];
  /** Arrival time, ISO 8601. */
  readonly receivedAt: string;
  /** Size of the raw message in bytes. */
  readonly size: number;
  /** Whether the message has attachments. */
  readonly hasAttachments: boolean;
  /**
   * The SMTP envelope the service recorded at intake (`mailFrom`, the `rcptTo`
   * addresses of this inbox, `clientAddress`, `helo`), or `null` when the
   * service records none (a hosted service without the extension).
   */
  readonly envelope: Envelope | null;
  readonly #inbox: MessageOwner;
  #original: MessageOriginal<RequestOptions> | undefined;

  /** Made by the waits; see `inbox.waitForMessage()`. `inbox.received(message)` wraps a message fetched otherwise. */
  constructor(inbox: MessageOwner, data: Message) {
    this.#inbox = inbox;
    this.data = data;
    this.id = data.id;
    this.inboxId = data.inboxId;
    this.seq = data.seq;
    this.from = data.from;
    this.to = data.to;
    this.cc = data.cc;
    this.replyTo = data.replyTo;
    this.subject = data.subject;
    this.preview = data.preview;
    this.text = data.text;
    this.html = data.html;
    this.headers = data.headers;
    this.attachments = data.attachments;
    this.receivedAt = data.receivedAt;
    this.size = data.size;
    this.hasAttachments = data.hasAttachments;
    this.envelope = data.envelope ?? null;
  }

  /** The raw source, read and parsed at most once for every analysis of this message. */
  #originalSource(): MessageOriginal<RequestOptions> {
    this.#original ??= new MessageOriginal<RequestOptions>(async (options) => (await this.#inbox.raw(this.id, options)).bytes);
    return this.#original;
  }

  /**
   * The message as it was sent, parsed from its raw source: every header in
   * order, the original (unsanitized) HTML part, the text part and the
   * attachments. The raw source is read and parsed once per message, and
   * every check of it (compatibility, content rules, sender authentication,
   * renders, audits, the report's `.eml`) shares that one reading.
   *
   * @example
   * ```ts
   * const { html, headers } = await message.original();
   * expect(headers.find((h) => h.key === 'list-unsubscribe')).toBeDefined();
   * ```
   */
  async original(options?: RequestOptions): Promise<OriginalParts> {
    return this.#originalSource().parsed(options);
  }

  #source(): { html: string | null; text: string | null; subject: string } {
    return { html: this.html, text: this.text, subject: this.subject };
  }

  /**
   * The message's links in document order (`{ href, text, context, … }`): HTML
   * entities decoded, tracking redirects unwrapped, duplicates merged. A string
   * or RegExp filter matches the anchor text or the href; an object filters by
   * `text`, `href`, `host`, `where`.
   *
   * @example
   * ```ts
   * const resets = message.links({ host: 'acme.example', text: /reset/i });
   * ```
   */
  links(filter?: LinkFilterArg): ExtractedLink[] {
    return extractLinks(this.#source(), filter);
  }

  /**
   * The one link that matches `filter`; throws (listing the message's links)
   * when none or several different ones match.
   *
   * @example
   * ```ts
   * await page.goto(message.link('Confirm email').href);
   * ```
   */
  link(filter?: LinkFilterArg): ExtractedLink {
    return throwFromCall(ReceivedMessage.prototype.link, () => findLink(this.#source(), filter));
  }

  /**
   * The one-time code (separators removed), from the HTML, the text or the
   * subject; throws an `OtpNotFoundError` listing what was considered.
   *
   * @example
   * ```ts
   * await page.getByLabel('Code').fill(message.otp({ length: 6 }));
   * ```
   */
  otp(options?: OtpOptions): string {
    return throwFromCall(ReceivedMessage.prototype.otp, () => extractOtp(this.#source(), options));
  }

  /** The one-time-code candidates, best first, with their scores and reasons; `rejected` on the result says what was ruled out and why. */
  otps(options?: OtpOptions): OtpCandidates {
    return extractOtps(this.#source(), options);
  }

  /**
   * The HTML and CSS features of the email that the named clients do not
   * support (or support in part), from the caniemail.com data bundled with
   * inboxkit, with a score per client as Mailpit's HTML check computes it. The
   * original HTML part is checked (read from the raw source); a server that does
   * not serve raw sources gets the sanitized HTML checked instead (`source`).
   *
   * @param clients - `gmail` (every platform), `outlook.windows`, `apple-mail.ios`, `*.android` …; every client when omitted.
   * @throws InboxkitError for an unknown client name, listing the known ones.
   * @example
   * ```ts
   * const report = await message.compatibility(['gmail', 'outlook.windows']);
   * console.log(report.clients.map((c) => `${c.name}: ${c.score.supported}%`));
   * ```
   */
  async compatibility(clients?: EmailClientNames, options?: RequestOptions): Promise<CompatibilityReport> {
    return messageCompatibility(this, clients, options);
  }

  /**
   * Sender authentication, offline: every DKIM signature, SPF of the envelope
   * sender for the client address, DMARC alignment and ARC, verified by
   * `mailauth` (an optional peer dependency) on the raw source against the test
   * DNS in `dns` — a name the map lacks does not exist; nothing is looked up on
   * the network. Each result that is not a pass has a `reason` saying what to fix.
   *
   * @throws InboxkitError when mailauth is not installed, or a record of `dns` is malformed.
   * @example
   * ```ts
   * const auth = await message.authentication({ dns: { 'mail._domainkey.acme.example': `v=DKIM1; k=rsa; p=${publicKey}` } });
   * expect(auth.dkim[0]?.result).toBe('pass');
   * ```
   */
  async authentication(options: AuthenticationOptions = {}): Promise<AuthenticationReport> {
    const session = authenticationSession(this.envelope, options);
    const raw = await this.#originalSource().raw(options);
    return withoutLookups(await runAuthentication({ raw, dns: options.dns ?? {}, session, trustReceived: this.envelope === null }));
  }

  /**
   * The content rules mailbox providers and clients enforce, applied to the raw
   * source: List-Unsubscribe and RFC 8058 one-click for bulk mail, images
   * without alt, HTML over Gmail's clipping size, no text part, script, form,
   * external stylesheets and `<link>`, plain-http links, and malformed or missing
   * Date, Message-ID and From. Each finding names its rule (see `CONTENT_RULES`
   * for the why and the fix), its severity and where it is.
   *
   * @example
   * ```ts
   * const findings = await message.contentChecks();
   * expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
   * ```
   */
  async contentChecks(options: ContentCheckOptions & RequestOptions = {}): Promise<ContentFinding[]> {
    return checkContent(await this.#originalSource().contentSource(options), options);
  }

  /**
   * The score a real spam filter gives the message: the local service sends its
   * raw source to the scanner it was started with (`--spam-check`: SpamAssassin's
   * spamd, or Rspamd) and answers `{ score, threshold, spam, rules }`. Rules that
   * fire only because the mail came from a local app over loopback are marked
   * `localOnly` and not counted in `score`.
   *
   * @throws SpamCheckUnavailableError naming the flag and how to install a scanner when the service has none, or when it is down or slow.
   * @example
   * ```ts
   * const { score, rules } = await message.spamCheck();
   * console.log(score, rules.filter((r) => !r.localOnly).map((r) => r.name));
   * ```
   */
  async spamCheck(options?: RequestOptions): Promise<SpamCheck> {
    const owner = this.#inbox;
    if (!owner.spamCheck) throw new InboxkitError('spamCheck: this message was not made by an inbox handle, so it cannot ask the service; use a message from inbox.waitForMessage().');
    return owner.spamCheck(this.id, options);
  }

  /** The raw source (`.eml` bytes) as received over SMTP (read once per message; each call returns a copy). */
  async raw(options?: RequestOptions): Promise<Uint8Array> {
    return (await this.#originalSource().raw(options)).slice();
  }

  /**
   * Downloads an attachment, by id or by file name (exact, then ignoring case).
   * Throws, listing the attachments, when there is no such one or the name is ambiguous.
   */
  async attachment(idOrFilename: string, options?: RequestOptions): Promise<ReceivedAttachment> {
    const found = throwFromCall(ReceivedMessage.prototype.attachment, () => this.#findAttachment(idOrFilename));
    const download = await this.#inbox.downloadAttachment(this.id, found.id, options);
    return { id: found.id, filename: found.filename, contentType: download.contentType || found.contentType, bytes: download.bytes, size: download.bytes.byteLength };
  }

  #findAttachment(idOrFilename: string): Attachment {
    const byId = this.attachments.find((a) => a.id === idOrFilename);
    if (byId) return byId;
    let named = this.attachments.filter((a) => a.filename === idOrFilename);
    if (named.length === 0) named = this.attachments.filter((a) => a.filename.toLowerCase() === idOrFilename.toLowerCase());
    const only = named[0];
    if (named.length === 1 && only) return only;
    const list = this.attachments.length === 0 ? 'it has no attachments' : `its attachments are ${this.attachments.map((a) => `${JSON.stringify(a.filename)} (id ${a.id}, ${a.contentType})`).join(', ')}`;
    if (named.length > 1) {
      throw new InboxkitError(`Message ${JSON.stringify(this.subject)} has ${named.length} attachments named ${JSON.stringify(idOrFilename)}; ${list}. Pass the attachment's id instead.`);
    }
    throw new InboxkitError(`Message ${JSON.stringify(this.subject)} has no attachment with id or file name ${JSON.stringify(idOrFilename)}: ${list}.`);
  }

  /** Deletes the message from the inbox. */
  async delete(options?: RequestOptions): Promise<DeletedMessage> {
    return this.#inbox.deleteMessage(this.id, options);
  }

  /** The wire message (what `JSON.stringify` shows). */
  toJSON(): Message {
    return this.data;
  }

  /** `console.log(message)` shows a one-line summary. */
  [inspect.custom](): string {
    return `ReceivedMessage { seq: ${this.seq}, subject: ${JSON.stringify(this.subject)}, from: ${JSON.stringify(this.from?.address ?? null)}, receivedAt: ${JSON.stringify(this.receivedAt)} }`;
  }
}
