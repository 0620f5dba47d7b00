import { test, expect, startTcpProxy } from './fixtures.ts';
import { AbortError, InboxkitError, UnexpectedMessageError, WaitTimeoutError } from '../../../src/client/index.ts';
import type { ReceivedMessage } from '../../../src/client/index.ts';

/** Settles a promise into a value or the error, so a test can inspect either. */
function settle<T>(promise: Promise<T>): Promise<T | Error> {
  return promise.catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
}

test('a message that arrived before the wait started is returned', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, subject: 'Confirm your email', text: 'Click the link.' });
  const message = await inbox.waitForMessage({ subject: 'confirm your email' }, { timeout: 10_000 });
  expect(message.subject).toBe('Confirm your email');
  expect(message.from).toEqual({ address: 'no-reply@acme.example', name: 'Acme' });
  expect(message.text).toContain('Click the link.');
  expect(message.data.id).toBe(message.id);
});

test('a message that arrives while the wait is running is returned, and the wait closes its stream when done', async ({ server, makeClient, send }) => {
  const proxy = await startTcpProxy(new URL(server.url));
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    const waiting = inbox.waitForMessage({ subject: /welcome/i }, { timeout: 10_000 });
    await expect.poll(() => proxy.liveStreams()).toBe(1);
    await send({ to: inbox.address, subject: 'Welcome aboard', text: 'hi' });
    const message = await waiting;
    expect(message.subject).toBe('Welcome aboard');
    await expect.poll(() => proxy.liveStreams()).toBe(0);
  } finally {
    await proxy.close();
  }
});

test('two waits in sequence return successive messages, each message once per handle', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, subject: 'Your code 1', text: 'code 111111' });
  await send({ to: inbox.address, subject: 'Your code 2', text: 'code 222222' });
  const first = await inbox.waitForMessage({ subject: 'Your code' }, { timeout: 10_000 });
  const second = await inbox.waitForMessage({ subject: 'Your code' }, { timeout: 10_000 });
  expect([first.subject, second.subject]).toEqual(['Your code 1', 'Your code 2']);

  const third = settle(inbox.waitForMessage({ subject: 'Your code' }, { timeout: 10_000 }));
  await send({ to: inbox.address, subject: 'Your code 3', text: 'code 333333' });
  expect(((await third) as ReceivedMessage).subject).toBe('Your code 3');

  const none = await settle(inbox.waitForMessage({ subject: 'Your code' }, { timeout: 700 }));
  expect(none).toBeInstanceOf(WaitTimeoutError);
  expect((none as Error).message).toContain('3 messages already returned by earlier waits on this inbox handle were not considered again');

  // Another handle of the same inbox has its own memory: it starts from the oldest again.
  const other = guest.inboxes.fromData(inbox.data, inbox.token);
  expect((await other.waitForMessage({ subject: 'Your code' }, { timeout: 10_000 })).subject).toBe('Your code 1');
});

test('peek looks without consuming: it finds messages earlier waits returned, and the next wait still gets its message', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, subject: 'Welcome aboard', text: 'hi' });
  await send({ to: inbox.address, subject: 'Your invoice', text: 'total' });
  expect((await inbox.waitForMessage({ subject: 'Welcome' }, { timeout: 10_000 })).subject).toBe('Welcome aboard');

  expect((await inbox.peek({ subject: 'Welcome' }))?.subject).toBe('Welcome aboard'); // returned before, still seen
  expect((await inbox.peek())?.subject).toBe('Welcome aboard'); // the oldest match first
  expect((await inbox.peek({ subject: 'invoice' }))?.subject).toBe('Your invoice');
  expect(await inbox.peek({ subject: 'Password reset' })).toBeNull();

  // The peeks consumed nothing: the next wait returns the invoice, then nothing is left.
  expect((await inbox.waitForMessage(undefined, { timeout: 10_000 })).subject).toBe('Your invoice');
  expect(await settle(inbox.waitForMessage(undefined, { timeout: 500 }))).toBeInstanceOf(WaitTimeoutError);
});

test('peek with a window waits for a matching message that arrives later, and resolves null when none does', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  const later = inbox.peek({ subject: 'Sign-in code' }, { within: 10_000 });
  await send({ to: inbox.address, subject: 'Newsletter', text: 'news' });
  await send({ to: inbox.address, subject: 'Sign-in code', text: 'code 123456' });
  expect((await later)?.subject).toBe('Sign-in code');
  expect(await inbox.peek({ subject: 'Password reset' }, { within: 300 })).toBeNull();
  await expect(inbox.peek(undefined, { within: -1 })).rejects.toThrow(/peek: within must be a number of milliseconds ≥ 0; got -1/);
});

test('peek without a window reads the message list once and opens no event stream', async ({ server, makeClient, send }) => {
  const proxy = await startTcpProxy(new URL(server.url));
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    await send({ to: inbox.address, subject: 'Welcome aboard', text: 'hi' });
    await expect.poll(async () => (await inbox.messages()).items.length).toBe(1);
    const lists = proxy.listRequests();
    expect((await inbox.peek({ subject: 'Welcome' }))?.subject).toBe('Welcome aboard');
    expect(proxy.streamRequests()).toBe(0);
    expect(proxy.listRequests()).toBe(lists + 1);
  } finally {
    await proxy.close();
  }
});

test("since: 'now' ignores the messages already in the inbox", async ({ server, makeClient, send }) => {
  const proxy = await startTcpProxy(new URL(server.url));
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    await send({ to: inbox.address, subject: 'Sign-in code (old)', text: 'code 111111' });
    const waiting = inbox.waitForMessage({ subject: 'Sign-in code' }, { since: 'now', timeout: 10_000 });
    await expect.poll(() => proxy.liveStreams()).toBe(1);
    await send({ to: inbox.address, subject: 'Sign-in code (new)', text: 'code 222222' });
    expect((await waiting).subject).toBe('Sign-in code (new)');

    const timedOut = await settle(inbox.waitForMessage({ subject: 'nothing like it' }, { since: 'now', timeout: 500 }));
    expect((timedOut as Error).message).toContain("Messages already in the inbox when the wait started (seq ≤ 2) were ignored (since: 'now').");
  } finally {
    await proxy.close();
  }
});

test('on timeout the error lists what arrived and which criterion each message failed', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, from: 'Support <help@acme.example>', subject: 'Reset your password', text: 'x' });
  await send({ to: inbox.address, subject: 'Confirm your email', text: 'x' });
  const error = await settle(inbox.waitForMessage({ subject: /Confirm/, from: 'billing@acme.example' }, { timeout: 1000 }));
  expect(error).toBeInstanceOf(WaitTimeoutError);
  const timeout = error as WaitTimeoutError;
  expect(timeout.criteria).toBe('subject ~ /Confirm/ and from "billing@acme.example"');
  expect(timeout.received.map((m) => m.subject)).toEqual(['Reset your password', 'Confirm your email']);
  expect(timeout.mismatches.map((m) => [m.message.subject, m.failed])).toEqual([
    ['Confirm your email', ['from "Acme <no-reply@acme.example>" did not match "billing@acme.example"']],
    ['Reset your password', ['subject "Reset your password" did not match /Confirm/', 'from "Support <help@acme.example>" did not match "billing@acme.example"']],
  ]);
  const lines = timeout.message.split('\n');
  expect(lines[0]).toBe(`waitForMessage timed out after 1000 ms waiting for a message matching subject ~ /Confirm/ and from "billing@acme.example" at ${inbox.address}.`);
  expect(lines[1]).toBe('2 messages arrived that did not match:');
  expect(lines[2]).toMatch(
    /^ {2}- \d\d:\d\d:\d\d\.\d+ from Support <help@acme\.example> "Reset your password": subject "Reset your password" did not match \/Confirm\/; from "Support <help@acme\.example>" did not match "billing@acme\.example"$/,
  );
  expect(lines[3]).toMatch(/^ {2}- \d\d:\d\d:\d\d\.\d+ from Acme <no-reply@acme\.example> "Confirm your email": from .* did not match "billing@acme\.example"$/);
});

test('a timeout with nothing arrived says so and what to check', async ({ guest }) => {
  const inbox = await guest.inboxes.create();
  const error = await settle(inbox.waitForMessage({ subject: 'Welcome' }, { timeout: 500 }));
  expect(error).toBeInstanceOf(WaitTimeoutError);
  expect((error as WaitTimeoutError).received).toEqual([]);
  expect((error as Error).message).toContain('No message arrived that an earlier wait had not returned');
  expect((error as Error).message).toContain(`Check that the application sent the mail to exactly ${inbox.address}, and that its SMTP host and port point at this inbox service`);
});

test('aborting the signal rejects at once with an AbortError carrying the reason, and closes the stream', async ({ server, makeClient }) => {
  const proxy = await startTcpProxy(new URL(server.url));
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    const controller = new AbortController();
    const waiting = settle(inbox.waitForMessage({ subject: 'Never' }, { timeout: 60_000, signal: controller.signal }));
    await expect.poll(() => proxy.liveStreams()).toBe(1);
    const reason = new Error('the test is over');
    controller.abort(reason);
    const error = await waiting;
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).cause).toBe(reason);
    expect((error as Error).message).toContain('waitForMessage(subject "Never")');
    await expect.poll(() => proxy.liveStreams()).toBe(0);

    const already = await settle(inbox.waitForMessage(undefined, { signal: controller.signal }));
    expect(already).toBeInstanceOf(AbortError);
  } finally {
    await proxy.close();
  }
});

test('waitForMessages returns the given number of distinct matching messages in arrival order', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, subject: 'Invoice 1', text: 'x' });
  await send({ to: inbox.address, subject: 'Newsletter', text: 'x' });
  const waiting = inbox.waitForMessages(3, { subject: /^Invoice/ }, { timeout: 10_000 });
  await send({ to: inbox.address, subject: 'Invoice 2', text: 'x' });
  await send({ to: inbox.address, subject: 'Invoice 3', text: 'x' });
  await send({ to: inbox.address, subject: 'Invoice 4', text: 'x' });
  const messages = await waiting;
  expect(messages.map((m) => m.subject)).toEqual(['Invoice 1', 'Invoice 2', 'Invoice 3']);
  expect((await inbox.waitForMessage({ subject: /^Invoice/ }, { timeout: 10_000 })).subject).toBe('Invoice 4');
});

test('waitForMessages that finds too few says how many of how many it found', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, subject: 'Invoice 1', text: 'x' });
  const error = await settle(inbox.waitForMessages(2, { subject: 'Invoice' }, { timeout: 700 }));
  expect(error).toBeInstanceOf(WaitTimeoutError);
  expect((error as Error).message).toContain('waiting for 2 messages matching subject "Invoice"');
  expect((error as Error).message).toContain('Found 1 of 2: "Invoice 1".');
  expect((error as WaitTimeoutError).matched.map((m) => m.subject)).toEqual(['Invoice 1']);
});

test('expectNoMessage resolves when only other messages arrive within the window', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, subject: 'Welcome', text: 'x' });
  const checking = inbox.expectNoMessage({ subject: /password/i }, { within: 800 });
  await send({ to: inbox.address, subject: 'Your invoice', text: 'x' });
  await expect(checking).resolves.toBeUndefined();
});

test('expectNoMessage fails naming the message when a matching one arrives within the window', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  const checking = settle(inbox.expectNoMessage({ subject: /password/i }, { within: 10_000 }));
  await send({ to: inbox.address, subject: 'Reset your password', text: 'x' });
  const error = await checking;
  expect(error).toBeInstanceOf(UnexpectedMessageError);
  const unexpected = error as UnexpectedMessageError;
  expect(unexpected.received.subject).toBe('Reset your password');
  expect(unexpected.criteria).toBe('subject ~ /password/i');
  expect(unexpected.message).toContain(`expected no message matching subject ~ /password/i at ${inbox.address} within 10000 ms, but "Reset your password" from Acme <no-reply@acme.example> arrived`);
});

test("expectNoMessage counts a matching message already in the inbox, unless since is 'now' or a wait returned it", async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, subject: 'Reset your password', text: 'x' });
  expect(await settle(inbox.expectNoMessage({ subject: 'Reset' }, { within: 5000 }))).toBeInstanceOf(UnexpectedMessageError);
  await expect(inbox.expectNoMessage({ subject: 'Reset' }, { within: 300, since: 'now' })).resolves.toBeUndefined();
  await inbox.waitForMessage({ subject: 'Reset' }, { timeout: 5000 });
  await expect(inbox.expectNoMessage({ subject: 'Reset' }, { within: 300 })).resolves.toBeUndefined();
});

test('a predicate gets the whole message, and criteria are combined with it', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, subject: 'Your code', text: 'Your code is 111111', html: '<p>Your code is <b>111111</b></p>' });
  await send({ to: inbox.address, subject: 'Your code', text: 'Your code is 222222', html: '<p>Your code is <b>222222</b></p>' });
  await send({ to: inbox.address, subject: 'Other', text: 'Your code is 222222' });
  const seen: string[] = [];
  const message = await inbox.waitForMessage(
    {
      subject: 'Your code',
      where: async (m) => {
        seen.push(m.subject);
        return m.html !== null && m.otp() === '222222';
      },
    },
    { timeout: 10_000 },
  );
  expect(message.otp()).toBe('222222');
  expect(seen).toEqual(['Your code', 'Your code']); // the summary check ruled out "Other" before any fetch

  const byPredicate = await inbox.waitForMessage((m) => m.text?.includes('111111') ?? false, { timeout: 10_000 });
  expect(byPredicate.subject).toBe('Your code');
  expect(byPredicate.seq).toBe(1);
  expect(inbox.receivedMessages().map((m) => m.seq)).toEqual([1, 2]); // "Other" was ruled out by its summary, never read whole
});

test('body criteria match the text and the HTML of the whole message', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, subject: 'A', text: 'Nothing here', html: '<p>Nothing here</p>' });
  await send({ to: inbox.address, subject: 'B', text: 'Your verification code\nis 482913', html: '<p><a href="https://acme.example/verify">Verify</a></p>' });
  expect((await inbox.waitForMessage({ text: 'verification code is' }, { timeout: 10_000 })).subject).toBe('B');
  const other = guest.inboxes.fromData(inbox.data, inbox.token);
  expect((await other.waitForMessage({ html: /href="https:\/\/acme\.example\/verify"/ }, { timeout: 10_000 })).subject).toBe('B');
});

test('a predicate that throws fails the wait with its error', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  await send({ to: inbox.address, subject: 'Hello', text: 'x' });
  const error = await settle(
    inbox.waitForMessage(
      () => {
        throw new Error('broken predicate');
      },
      { timeout: 10_000 },
    ),
  );
  expect((error as Error).message).toBe('broken predicate');
});

test('invalid criteria and options are refused with what to write instead', async ({ guest }) => {
  const inbox = await guest.inboxes.create();
  await expect(inbox.waitForMessage({ subjet: 'x' } as never)).rejects.toThrow(/unknown criterion "subjet"/);
  await expect(inbox.waitForMessage(undefined, { timeout: -1 })).rejects.toThrow(/timeout must be a number of milliseconds ≥ 0; got -1/);
  await expect(inbox.waitForMessages(0)).rejects.toThrow(/count must be a whole number ≥ 1; got 0/);
  await expect(inbox.expectNoMessage(undefined, {} as never)).rejects.toThrow(/within must be a number of milliseconds/);
  await expect(inbox.waitForMessage(undefined, { since: 'later' as never })).rejects.toThrow(InboxkitError);
});

test('a wait on an inbox that is deleted meanwhile fails and says so', async ({ server, makeClient }) => {
  const proxy = await startTcpProxy(new URL(server.url));
  try {
    const inbox = await makeClient({ baseUrl: proxy.url }).inboxes.create();
    const waiting = settle(inbox.waitForMessage({ subject: 'x' }, { timeout: 10_000 }));
    await expect.poll(() => proxy.liveStreams()).toBe(1);
    await inbox.delete();
    const error = await waiting;
    expect(error).toBeInstanceOf(InboxkitError);
    expect((error as Error).message).toBe(`waitForMessage(subject "x"): inbox ${inbox.address} was deleted while waiting.`);
  } finally {
    await proxy.close();
  }
});

test('two waits running at the same time on one handle get different messages', async ({ guest, send }) => {
  const inbox = await guest.inboxes.create();
  const a = inbox.waitForMessage({ subject: 'Code' }, { timeout: 10_000 });
  const b = inbox.waitForMessage({ subject: 'Code' }, { timeout: 10_000 });
  await send({ to: inbox.address, subject: 'Code 1', text: 'x' });
  await send({ to: inbox.address, subject: 'Code 2', text: 'x' });
  const subjects = (await Promise.all([a, b])).map((m) => m.subject);
  expect(subjects.sort()).toEqual(['Code 1', 'Code 2']);
});
