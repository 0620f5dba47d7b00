/**
 * Type tests of the public client API, checked by `npx tsc --noEmit -p tsconfig.json`.
 * Nothing here runs: a wrong inference or an `any` leak is a compile error.
 */
/* eslint-disable @typescript-eslint/no-unused-vars -- values here exist only for the compiler to inspect */
import { createClient, ApiError, RateLimitError } from '../../src/client/index.ts';
import type {
  InboxHandle,
  InboxkitError,
  NotFoundError,
  Page,
  PagePromise,
  ApiPromise,
  InboxStream,
  pkceChallenge,
  createPkceVerifier,
  AttachmentDownload,
  AttachmentStream,
  ClientOptions,
  CredentialKind,
  DeletedInbox,
  DeletedMessage,
  Domain,
  InboxEvent,
  StreamState,
  InboxkitClient,
  Me,
  Message,
  MessageSummary,
  RateLimit,
  RawMessage,
  ResponseInfo,
  SignedOut,
  Token,
  ConnectCode,
  WithResponse,
} from '../../src/client/index.ts';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type IsAny<T> = 0 extends 1 & T ? true : false;
type Not<T extends boolean> = T extends true ? false : true;
function expectType<T extends true>(): void {
  void (0 as unknown as T);
}

export async function typeTests(options: ClientOptions): Promise<void> {
  const client = createClient(options);
  expectType<Equal<typeof client, InboxkitClient>>();

  // Single results: awaited values are the wire types, never any.
  const domains = await client.domains.list();
  expectType<Equal<typeof domains, Domain[]>>();
  expectType<Not<IsAny<(typeof domains)[number]['isDefault']>>>();
  expectType<Equal<ReturnType<typeof client.domains.list>, ApiPromise<Domain[]>>>();
  const withResponse = await client.domains.list().withResponse();
  expectType<Equal<typeof withResponse, WithResponse<Domain[]>>>();
  expectType<Equal<typeof withResponse.response, ResponseInfo>>();
  expectType<Equal<typeof withResponse.response.rateLimit, RateLimit>>();
  expectType<Equal<RateLimit['remaining'], number | null>>();

  // Inbox handles carry the inbox's fields and its token.
  const inbox = await client.inboxes.create({ label: 'x' });
  expectType<Equal<typeof inbox, InboxHandle>>();
  expectType<Equal<typeof inbox.token, string | null>>();
  expectType<Equal<typeof inbox.id, string>>();
  expectType<Equal<typeof inbox.expiresAt, string | null>>();
  expectType<Equal<Awaited<ReturnType<typeof inbox.update>>, InboxHandle>>();
  expectType<Equal<Awaited<ReturnType<typeof inbox.delete>>, DeletedInbox>>();
  expectType<Equal<Awaited<ReturnType<typeof client.inboxes.get>>, InboxHandle>>();

  // Lists: awaited for a page, iterated for items.
  const inboxes = client.inboxes.list({ limit: 10 });
  expectType<Equal<typeof inboxes, PagePromise<InboxHandle>>>();
  const firstPage = await inboxes;
  expectType<Equal<typeof firstPage, Page<InboxHandle>>>();
  expectType<Equal<typeof firstPage.nextCursor, string | null>>();
  for await (const item of client.inboxes.list()) expectType<Equal<typeof item, InboxHandle>>();
  for await (const summary of inbox.messages({ cursor: 'c', signal: AbortSignal.timeout(1) })) {
    expectType<Equal<typeof summary, MessageSummary>>();
    expectType<Equal<typeof summary.seq, number>>();
    expectType<Equal<typeof summary.from, { address: string; name: string } | null>>();
  }
  for await (const summary of client.messages.list('ibx_1')) expectType<Not<IsAny<typeof summary>>>();

  // Messages, raw, attachments.
  const message = await client.messages.get('msg_1');
  expectType<Equal<typeof message, Message>>();
  expectType<Equal<typeof message.html, string | null>>();
  expectType<Equal<typeof message.headers, Record<string, string>>>();
  expectType<Equal<Awaited<ReturnType<typeof client.messages.delete>>, DeletedMessage>>();
  expectType<Equal<Awaited<ReturnType<typeof client.messages.raw>>, RawMessage>>();
  const file = await client.attachments.download('msg_1', 'att_1');
  expectType<Equal<typeof file, AttachmentDownload>>();
  expectType<Equal<typeof file.bytes, Uint8Array>>();
  expectType<Equal<typeof file.filename, string | null>>();
  expectType<Equal<Awaited<ReturnType<typeof client.attachments.stream>>, AttachmentStream>>();

  // Me and the extension flow.
  const me = await client.me.get();
  expectType<Equal<typeof me, Me>>();
  expectType<Equal<typeof me.credential, CredentialKind>>();
  expectType<Equal<CredentialKind, 'anonymous' | 'inboxToken' | 'apiKey' | 'session' | 'operator'>>();
  expectType<Equal<Awaited<ReturnType<typeof client.me.signOut>>, SignedOut>>();
  expectType<Equal<Awaited<ReturnType<typeof client.extension.exchange>>, Token>>();
  expectType<Equal<Awaited<ReturnType<typeof client.extension.createCode>>, ConnectCode>>();
  expectType<Equal<ReturnType<typeof pkceChallenge>, string>>();
  expectType<Equal<ReturnType<typeof createPkceVerifier>, string>>();

  // The stream's events narrow by type.
  const stream = client.inboxes.stream('ibx_1', { lastEventId: 3 });
  expectType<Equal<typeof stream, InboxStream>>();
  expectType<Equal<typeof stream.state, StreamState>>();
  expectType<Equal<StreamState, 'idle' | 'connecting' | 'live' | 'reconnecting' | 'unavailable' | 'ended'>>();
  for await (const event of stream) {
    expectType<Equal<typeof event, InboxEvent>>();
    if (event.type === 'message') expectType<Equal<typeof event.message, MessageSummary>>();
    else if (event.type === 'ready') expectType<Equal<typeof event.lastSeq, number>>();
    else if (event.type === 'access.revoked') expectType<Equal<typeof event.reason, string>>();
    else expectType<Equal<typeof event.type, 'inbox.deleted' | 'inbox.expired'>>();
  }

  // Errors carry typed data.
  try {
    await client.inboxes.get('x');
  } catch (err) {
    if (err instanceof RateLimitError) expectType<Equal<typeof err.retryAfter, number | null>>();
    if (err instanceof ApiError) {
      expectType<Equal<typeof err.status, number>>();
      expectType<Equal<typeof err.requestId, string | null>>();
      expectType<Equal<typeof err.rateLimit, RateLimit>>();
    }
    expectType<Equal<NotFoundError extends InboxkitError ? true : false, true>>();
  }

  // Mistakes do not compile.
  // @ts-expect-error: baseUrl is required
  createClient({ apiKey: 'tm_x' });
  // @ts-expect-error: unknown option
  createClient({ baseUrl: 'http://x', apikey: 'tm_x' });
  // @ts-expect-error: ids are strings
  void client.messages.get(1);
  // @ts-expect-error: no such field on create
  void client.inboxes.create({ address: 'a@b.c' });
  // @ts-expect-error: forwardTo is a string or null
  void inbox.update({ forwardTo: 1 });
  // @ts-expect-error: no such resource
  void client.users;
  // @ts-expect-error: no such field on a summary
  void (null as unknown as MessageSummary).body;
  // @ts-expect-error: the handle's data is read-only
  inbox.id = 'other';
}
