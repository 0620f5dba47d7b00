/**
 * The fixtures through the real runner: inline projects are written to a
 * temporary folder and run by a child `playwright test`, against a local server
 * this test starts; the JSON report and the server are checked afterwards.
 */
import { stripVTControlCharacters } from 'node:util';
import { expect } from '@playwright/test';
import { NotFoundError } from '../../../src/client/index.ts';
import { API_KEY, resultOf, runInline, smtpEnv, test } from './harness.ts';

test.describe.configure({ mode: 'parallel' });

/** Reads an `INBOX {json}` line the inline specs print. */
function printedInboxes(stdout: string): Array<{ id: string; address: string; localPart: string; title: string; workerIndex: number }> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('INBOX '))
    .map((line) => JSON.parse(line.slice('INBOX '.length)));
}

test('parallel workers get distinct inboxes named after the test and the worker, and teardown deletes them', { tag: '@heavy' }, async ({ server, admin }) => {
  const titles = ['signs up', 'signs in', 'resets a password', 'reads an invoice'];
  const run = await runInline(
    {
      'inboxes.spec.ts': `
import { test, expect } from '$FIXTURES';
for (const title of ${JSON.stringify(titles)}) {
  test(title, async ({ inbox }, testInfo) => {
    console.log('INBOX ' + JSON.stringify({ id: inbox.id, address: inbox.address, localPart: inbox.localPart, title, workerIndex: testInfo.workerIndex }));
    expect(inbox.address).toContain('@');
  });
}
`,
    },
    { inboxkit: { baseUrl: server.url, apiKey: API_KEY }, workers: 2, env: smtpEnv(server) },
  );
  const inboxes = titles.flatMap((title) => {
    const result = resultOf(run, title);
    expect(result.status, result.errors.join('\n')).toBe('passed');
    return printedInboxes(result.stdout);
  });
  expect(inboxes).toHaveLength(4);
  expect(new Set(inboxes.map((i) => i.address)).size).toBe(4);
  expect(new Set(inboxes.map((i) => i.workerIndex)).size).toBe(2);
  for (const inbox of inboxes) {
    const slug = inbox.title.replaceAll(' ', '-');
    expect(inbox.localPart).toMatch(new RegExp(`^${slug}-w${inbox.workerIndex}-[a-z0-9]{6}$`));
    await expect(admin.inboxes.get(inbox.id)).rejects.toBeInstanceOf(NotFoundError);
  }
});

test('createInbox gives a test several inboxes, and every one is deleted when the test ends', { tag: '@heavy' }, async ({ server, admin }) => {
  const run = await runInline(
    {
      'several.spec.ts': `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';
test('two users talk', async ({ inbox, createInbox }) => {
  const bob = await createInbox({ label: 'bob' });
  const carol = await createInbox();
  for (const i of [inbox, bob, carol]) console.log('INBOX ' + JSON.stringify({ id: i.id, address: i.address, localPart: i.localPart }));
  expect(new Set([inbox.address, bob.address, carol.address]).size).toBe(3);
  expect(bob.label).toBe('bob');
  await send({ to: bob.address, subject: 'Hello Bob', text: 'hi' });
  await expect(bob).toHaveReceived({ subject: 'Hello Bob' });
  await expect(carol).not.toHaveReceived({ subject: 'Hello Bob' }, { timeout: 300 });
});
`,
    },
    { inboxkit: { baseUrl: server.url, apiKey: API_KEY }, env: smtpEnv(server) },
  );
  const result = resultOf(run, 'two users talk');
  expect(result.status, result.errors.join('\n')).toBe('passed');
  const inboxes = printedInboxes(result.stdout);
  expect(inboxes).toHaveLength(3);
  expect(inboxes.map((i) => i.localPart)).toEqual([
    expect.stringMatching(/^two-users-talk-w0-[a-z0-9]{6}$/),
    expect.stringMatching(/^two-users-talk-w0-n2-[a-z0-9]{6}$/),
    expect.stringMatching(/^two-users-talk-w0-n3-[a-z0-9]{6}$/),
  ]);
  for (const inbox of inboxes) await expect(admin.inboxes.get(inbox.id)).rejects.toBeInstanceOf(NotFoundError);
});

test('a wait is a report step titled with its criteria, and the matched message is attached as HTML (the email itself), text, headers and .eml', { tag: '@heavy' }, async ({ server }) => {
  const run = await runInline(
    {
      'wait.spec.ts': `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';
test('gets a welcome', async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'Welcome aboard', text: 'Hello there', html: '<p>Hello <b>there</b> <img src="https://tracker.example/p.gif"></p>' });
  const message = await inbox.waitForMessage({ subject: /welcome/i });
  expect(message.subject).toBe('Welcome aboard');
});
`,
    },
    { inboxkit: { baseUrl: server.url }, env: smtpEnv(server) },
  );
  const result = resultOf(run, 'gets a welcome');
  expect(result.status, result.errors.join('\n')).toBe('passed');
  expect(result.steps).toContainEqual(expect.stringMatching(/^wait for email: .*subject.*\/welcome\/i/));
  const byName = new Map(result.attachments.map((a) => [a.name, a]));
  const html = byName.get('email 1 — Welcome aboard.html');
  // Not text/*: a terminal reporter would print its body under a failure.
  expect(html?.contentType).toBe('application/octet-stream');
  expect(html?.body.toString()).toContain('Hello <b>there</b>');
  expect(html?.body.toString()).toContain(`Content-Security-Policy" content="default-src 'none'`);
  expect(html?.body.toString(), 'the email itself, not a header table of inboxkit\'s').not.toContain('<th');
  expect(byName.get('email 1 — Welcome aboard.txt')?.body.toString()).toContain('Hello there');
  expect(JSON.parse(byName.get('email 1 — Welcome aboard.headers.json')?.body.toString() ?? '{}')).toMatchObject({ subject: 'Welcome aboard' });
  const eml = byName.get('email 1 — Welcome aboard.eml');
  expect(eml?.contentType).toBe('message/rfc822');
  expect(eml?.body.toString()).toMatch(/^Subject: Welcome aboard$/m);
  const index = byName.get('inboxkit: 1 email — email 1 — Welcome aboard');
  expect(index?.contentType).toBe('text/html');
  expect(index?.body.toString()).toContain('<h2>email 1 — Welcome aboard</h2>');
});

test('a failed test lists its emails in one entry of the terminal report, the page of them all, not a block per file', { tag: '@heavy' }, async ({ server }) => {
  const run = await runInline(
    {
      'terminal.spec.ts': `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';
test('fails after three emails', async ({ inbox }) => {
  for (const subject of ['Welcome', 'Verify your address', 'Your code']) await send({ to: inbox.address, subject, text: 'Your code is 482913', html: '<p>Your code is <b>482913</b></p>' });
  await inbox.waitForMessage({ subject: 'Welcome' });
  expect(await inbox.handle.peek({ subject: 'Your code' }, { within: 10_000 })).not.toBeNull();
  expect('the page').toBe('another page');
});
`,
    },
    { inboxkit: { baseUrl: server.url, apiKey: API_KEY }, env: smtpEnv(server), reporter: 'list' },
  );
  const result = resultOf(run, 'fails after three emails');
  expect(result.status).toBe('failed');
  // Every file of every email is in the report …
  const names = result.attachments.map((a) => a.name);
  for (const label of ['email 1 — Welcome', 'received #2 — Verify your address', 'received #3 — Your code']) {
    expect(names).toEqual(expect.arrayContaining([`${label}.html`, `${label}.txt`, `${label}.headers.json`, `${label}.eml`]));
  }
  // … and the terminal lists them as one entry: the page's name naming the three, then its path.
  const terminal = stripVTControlCharacters(run.stdout);
  const entries = terminal.split('\n').filter((line) => /attachment #\d+:/.test(line));
  expect(entries, terminal).toHaveLength(1);
  expect(entries[0]).toContain('inboxkit: 3 emails — email 1 — Welcome · received #2 — Verify your address · received #3 — Your code (text/html)');
  // (The spec's own lines are in the error's code frame; the attached documents are not.)
  expect(terminal, 'no attached document is printed').not.toContain('Content-Security-Policy');
  expect(terminal, 'no headers are printed').not.toContain('"content-type"');
  expect(terminal).toMatch(/attachments\/inboxkit-3-emails\S*\.html$/m);
  const page = result.attachments.find((a) => a.name.startsWith('inboxkit: 3 emails'))?.body.toString() ?? '';
  expect(page.match(/<iframe sandbox/g)).toHaveLength(3);
});

test('with attachToReport off nothing is attached', { tag: '@heavy' }, async ({ server }) => {
  const run = await runInline(
    {
      'quiet.spec.ts': `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';
test('gets mail quietly', async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'Quiet', text: 'shh' });
  await inbox.waitForMessage({ subject: 'Quiet' });
  expect(1).toBe(2);
});
`,
    },
    { inboxkit: { baseUrl: server.url, attachToReport: false }, env: smtpEnv(server) },
  );
  const result = resultOf(run, 'gets mail quietly');
  expect(result.status).toBe('failed');
  expect(result.attachments.filter((a) => /Quiet/.test(a.name))).toEqual([]);
});

test('a failing test attaches every message its inbox received once, and its inbox is still deleted', { tag: '@heavy' }, async ({ server, admin }) => {
  const run = await runInline(
    {
      'failing.spec.ts': `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';
test('fails after three emails', async ({ inbox }) => {
  console.log('INBOX ' + JSON.stringify({ id: inbox.id, address: inbox.address, localPart: inbox.localPart }));
  await send({ to: inbox.address, subject: 'First of three', text: 'one' });
  await send({ to: inbox.address, subject: 'Second of three', text: 'two' });
  await inbox.waitForMessages(2);
  await send({ to: inbox.address, subject: 'Third of three', text: 'three' });
  expect(await inbox.handle.peek({ subject: 'Third of three' }, { within: 10_000 })).not.toBeNull();
  expect('the page').toBe('another page');
});
`,
    },
    { inboxkit: { baseUrl: server.url, apiKey: API_KEY }, env: smtpEnv(server) },
  );
  const result = resultOf(run, 'fails after three emails');
  expect(result.status).toBe('failed');
  const names = result.attachments.map((a) => a.name);
  // The two a wait returned are attached by the wait; the failure adds only the one no wait returned.
  for (const name of ['email 1 — First of three', 'email 2 — Second of three', 'received #3 — Third of three']) {
    expect(names).toEqual(expect.arrayContaining([`${name}.html`, `${name}.txt`, `${name}.headers.json`, `${name}.eml`]));
  }
  for (const subject of ['First of three', 'Second of three', 'Third of three']) {
    expect(names.filter((name) => name.endsWith(`${subject}.html`)), subject).toHaveLength(1);
  }
  const [inbox] = printedInboxes(result.stdout);
  await expect(admin.inboxes.get(inbox!.id)).rejects.toBeInstanceOf(NotFoundError);
});

test('keepOnFailure keeps the inbox of a failed test and says how to see it in an annotation, while a passing test\'s inbox is deleted', { tag: '@heavy' }, async ({ server, admin }) => {
  const run = await runInline(
    {
      'keep.spec.ts': `
import { test, expect } from '$FIXTURES';
test('fails and keeps', async ({ inbox }) => {
  console.log('INBOX ' + JSON.stringify({ id: inbox.id, address: inbox.address }));
  expect(1).toBe(2);
});
test('passes and cleans up', async ({ inbox }) => {
  console.log('INBOX ' + JSON.stringify({ id: inbox.id, address: inbox.address }));
});
`,
    },
    { inboxkit: { baseUrl: server.url, apiKey: API_KEY, keepOnFailure: true }, env: smtpEnv(server) },
  );
  const failed = resultOf(run, 'fails and keeps');
  expect(failed.status).toBe('failed');
  const [kept] = printedInboxes(failed.stdout);
  const still = await admin.inboxes.get(kept!.id);
  expect(still.address).toBe(kept!.address);
  // One kept-inbox notice, next to the inbox's viewer link.
  const notice = failed.annotations.filter((a) => a.startsWith('inboxkit: kept inbox: ')).join('\n');
  expect(failed.annotations.filter((a) => a.startsWith('inboxkit: kept inbox: '))).toHaveLength(1);
  expect(failed.annotations).toContain(`inboxkit viewer: ${kept!.address}: ${server.url}/#inbox=${kept!.id}`);
  expect(notice).toContain(`viewer: ${server.url}/#inbox=${kept!.id}`);
  expect(notice).toContain(`inboxkit: kept inbox: inboxkit: kept the inbox ${kept!.address} of the failed test "fails and keeps"`);
  expect(notice).toContain(`/inboxes/${kept!.id}/messages`);
  expect(notice).not.toContain(API_KEY);
  expect(failed.stdout).not.toContain('kept the inbox'); // reported through the test info, not printed
  await still.delete();

  const passed = resultOf(run, 'passes and cleans up');
  expect(passed.status).toBe('passed');
  const [deleted] = printedInboxes(passed.stdout);
  await expect(admin.inboxes.get(deleted!.id)).rejects.toBeInstanceOf(NotFoundError);
  expect(passed.annotations).toEqual([]);
  expect(passed.stdout).not.toContain('kept the inbox');
});

test('a wait without a timeout fails with WaitTimeoutError before the test times out, and teardown still deletes the inbox', { tag: '@heavy' }, async ({ server, admin }) => {
  const run = await runInline(
    {
      'budget.spec.ts': `
import { test } from '$FIXTURES';
test('waits for mail that never comes', async ({ inbox }) => {
  console.log('INBOX ' + JSON.stringify({ id: inbox.id, address: inbox.address }));
  await inbox.waitForMessage({ subject: 'Never sent' });
});
`,
    },
    { inboxkit: { baseUrl: server.url, apiKey: API_KEY }, configExtra: 'timeout: 4000,', env: smtpEnv(server) },
  );
  const result = resultOf(run, 'waits for mail that never comes');
  expect(result.status).toBe('failed');
  expect(result.errors.join('\n')).toMatch(/WaitTimeoutError/);
  expect(result.errors.join('\n')).not.toMatch(/Test timeout of 4000ms exceeded/);
  expect(result.steps).toContainEqual(expect.stringMatching(/^wait for email: .*Never sent/));
  const [inbox] = printedInboxes(result.stdout);
  await expect(admin.inboxes.get(inbox!.id)).rejects.toBeInstanceOf(NotFoundError);
});

test('a test that runs out of time still has its messages attached and its inbox deleted: teardown has its own budget', { tag: '@heavy' }, async ({ server, admin }) => {
  const run = await runInline(
    {
      'stuck.spec.ts': `
import { test } from '$FIXTURES';
import { send } from './send.ts';
test('gets stuck', async ({ inbox }) => {
  console.log('INBOX ' + JSON.stringify({ id: inbox.id, address: inbox.address }));
  await send({ to: inbox.address, subject: 'Before getting stuck', text: 'hello' });
  await inbox.waitForMessage({ subject: 'Before getting stuck' });
  await new Promise(() => {});
});
`,
    },
    { inboxkit: { baseUrl: server.url, apiKey: API_KEY }, configExtra: 'timeout: 3000,', env: smtpEnv(server) },
  );
  const result = resultOf(run, 'gets stuck');
  expect(result.status).toBe('timedOut');
  // Attached once, by the wait that returned it (not again by the failure).
  expect(result.attachments.map((a) => a.name).filter((name) => name.endsWith('.eml'))).toEqual(['email 1 — Before getting stuck.eml']);
  const [inbox] = printedInboxes(result.stdout);
  await expect(admin.inboxes.get(inbox!.id)).rejects.toBeInstanceOf(NotFoundError);
});

test('the fixtures merge with a user\'s own fixtures through mergeTests and test.extend', { tag: '@heavy' }, async ({ server }) => {
  const run = await runInline(
    {
      'merged.spec.ts': `
import { test as base, mergeTests, expect } from '@playwright/test';
import { test as inboxTest, inboxkitFixtures } from '$FIXTURES';
import { send } from './send.ts';

const userTest = base.extend<{ user: { name: string } }>({
  user: async ({}, use) => use({ name: 'Ada' }),
});
const merged = mergeTests(inboxTest, userTest);
merged('merged: a user fixture and an inbox together', async ({ user, inbox }) => {
  await send({ to: inbox.address, subject: 'Hi ' + user.name, text: 'hello' });
  const message = await inbox.waitForMessage({ subject: 'Hi Ada' });
  expect(message.to[0]?.address).toBe(inbox.address);
});

const extended = base.extend(inboxkitFixtures).extend<{ account: { email: string } }>({
  account: async ({ inbox }, use) => use({ email: inbox.address }),
});
extended('extended: a user fixture built on the inbox', async ({ account, inbox }) => {
  expect(account.email).toBe(inbox.address);
});
`,
    },
    { inboxkit: { baseUrl: server.url }, env: smtpEnv(server) },
  );
  for (const title of ['merged: a user fixture and an inbox together', 'extended: a user fixture built on the inbox']) {
    const result = resultOf(run, title);
    expect(result.status, result.errors.join('\n')).toBe('passed');
  }
});

test('no API key and no inbox token appear in the report, its steps or its attachments', { tag: '@heavy' }, async ({ server }) => {
  const run = await runInline(
    {
      'secrets.spec.ts': `
import { test, expect } from '$FIXTURES';
import { leak, send } from './send.ts';
test('fails with mail around', async ({ inbox, createInbox }) => {
  const other = await createInbox();
  await leak('token-1', inbox.handle.token ?? '');
  await leak('token-2', other.handle.token ?? '');
  console.log(inbox);
  console.log(JSON.stringify(other));
  await send({ to: inbox.address, subject: 'Your code', text: 'Your code is 123456' });
  const message = await inbox.waitForMessage({ subject: 'Your code' });
  expect(message).toHaveOtp('123456');
  await expect(other).toHaveReceived({ subject: 'Nothing' }, { timeout: 300 });
});
`,
    },
    { inboxkit: { baseUrl: server.url }, env: smtpEnv(server) },
  );
  const guest = resultOf(run, 'fails with mail around');
  expect(guest.status).toBe('failed');
  expect(guest.attachments.length).toBeGreaterThan(4);

  const withKey = await runInline(
    {
      'secrets.spec.ts': `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';
test('fails with an API key', async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'Hello', text: 'hello' });
  await inbox.waitForMessage();
  expect(inbox.handle.client.credential).toBe('nothing');
});
`,
    },
    {
      // The key comes from the environment through a function, so that the config the JSON reporter writes does not hold it.
      config: `import { defineConfig } from '@playwright/test';
export default defineConfig({
  testDir: '.',
  outputDir: './test-results',
  workers: 1,
  reporter: [['json', { outputFile: 'report.json' }]],
  use: { inboxkit: { baseUrl: ${JSON.stringify(server.url)}, apiKey: () => process.env.SECRET_API_KEY } },
});
`,
      env: { ...smtpEnv(server), SECRET_API_KEY: API_KEY },
    },
  );
  const keyed = resultOf(withKey, 'fails with an API key');
  expect(keyed.status).toBe('failed');
  expect(keyed.errors.join('\n')).toContain('Received: "apiKey"');

  const tokens = [...run.out.values()];
  expect(tokens).toHaveLength(2);
  for (const token of tokens) expect(token.length).toBeGreaterThan(10);
  for (const [report, secrets] of [
    [run, tokens],
    [withKey, [API_KEY]],
  ] as const) {
    const haystacks = [report.reportText, report.stdout, report.stderr];
    for (const result of report.results.values()) {
      haystacks.push(result.stdout, ...result.steps, ...result.errors, ...result.attachments.map((a) => `${a.name}\n${a.body.toString('latin1')}`));
    }
    for (const secret of secrets) {
      for (const haystack of haystacks) expect(haystack.includes(secret), `a secret appears in: ${haystack.slice(0, 200)}`).toBe(false);
    }
  }
});

test('matchers pass and fail with messages that say what was expected and what arrived', { tag: '@heavy' }, async ({ server }) => {
  const run = await runInline(
    {
      'matchers.spec.ts': `
import { test, expect } from '$FIXTURES';
import { send } from './send.ts';

const html = '<p>Hi! Your sign-in code is <strong>482913</strong>.</p><p><a href="https://app.example/confirm?t=1">Confirm email</a> or <a href="https://app.example/help">Get help</a></p>';

test.beforeEach(async ({ inbox }) => {
  await send({ to: inbox.address, subject: 'Your sign-in code', html, text: 'Your sign-in code is 482913. Confirm: https://app.example/confirm?t=1' });
});

test('passing matchers', async ({ inbox }) => {
  await expect(inbox).toHaveReceived({ subject: 'Your sign-in code' });
  await expect(inbox).not.toHaveReceived({ subject: 'Invoice' }, { timeout: 300 });
  const message = await inbox.waitForMessage({ subject: /sign-in/ });
  expect(message).toHaveLink('Confirm email');
  expect(message).toHaveLink({ host: 'app.example', text: /help/i });
  expect(message).not.toHaveLink('Unsubscribe');
  expect(message).toHaveOtp();
  expect(message).toHaveOtp('482 913');
  expect(message).not.toHaveOtp('000000');
});

test('toHaveReceived fails', async ({ inbox }) => {
  await expect(inbox).toHaveReceived({ subject: 'Welcome' }, { timeout: 500 });
});

test('not.toHaveReceived fails', async ({ inbox }) => {
  await expect(inbox).not.toHaveReceived({ subject: /code/ }, { timeout: 500 });
});

test('toHaveLink fails', async ({ inbox }) => {
  const message = await inbox.waitForMessage();
  expect(message).toHaveLink('Reset password');
});

test('not.toHaveLink fails', async ({ inbox }) => {
  const message = await inbox.waitForMessage();
  expect(message).not.toHaveLink({ text: 'Confirm' });
});

test('toHaveOtp fails', async ({ inbox }) => {
  const message = await inbox.waitForMessage();
  expect(message).toHaveOtp('111111');
});

test('toHaveReceived on something else fails', async () => {
  await expect({ address: 'x@y' } as never).toHaveReceived({ subject: 'x' });
});
`,
    },
    { inboxkit: { baseUrl: server.url }, env: smtpEnv(server), workers: 2 },
  );
  const passing = resultOf(run, 'passing matchers');
  expect(passing.status, passing.errors.join('\n')).toBe('passed');

  const error = (title: string) => {
    const result = resultOf(run, title);
    expect(result.status, `${title} should fail`).toBe('failed');
    return result.errors.join('\n');
  };
  const received = error('toHaveReceived fails');
  expect(received).toContain('expect(inbox).toHaveReceived(criteria)');
  expect(received).toMatch(/Expected: a message matching .*Welcome/);
  expect(received).toMatch(/Received: 1 message arrived at .*, none matching:\n\s+- "Your sign-in code" from no-reply@acme\.example/);
  expect(received).toContain('Timeout: 500ms');

  const notReceived = error('not.toHaveReceived fails');
  expect(notReceived).toContain('expect(inbox).not.toHaveReceived(criteria)');
  expect(notReceived).toMatch(/Expected: no message matching .*\/code\//);
  expect(notReceived).toMatch(/Received: "Your sign-in code" from no-reply@acme\.example/);

  const link = error('toHaveLink fails');
  expect(link).toContain('expect(message).toHaveLink(filter)');
  expect(link).toMatch(/Expected: a link where .*text or href contains \\?"Reset password/);
  expect(link).toContain('"Confirm email" → https://app.example/confirm?t=1');
  expect(link).toContain('"Get help" → https://app.example/help');

  const notLink = error('not.toHaveLink fails');
  expect(notLink).toContain('expect(message).not.toHaveLink(filter)');
  expect(notLink).toContain('1 matching link in "Your sign-in code"');

  const otp = error('toHaveOtp fails');
  expect(otp).toContain('expect(message).toHaveOtp(expected)');
  expect(otp).toMatch(/Expected: the one-time code "111111"/);
  expect(otp).toMatch(/Received: "482913"/);

  const wrong = error('toHaveReceived on something else fails');
  expect(wrong).toContain('must be an inbox from the `inbox` fixture or createInbox()');
});

test('on a plan without custom addresses the inbox gets a random address', { tag: '@heavy' }, async () => {
  const { startServer } = await import('../../../src/server/index.ts');
  const server = await startServer({ port: 0, smtpPort: 0, plans: { guest: { customAddresses: false } } });
  try {
    const run = await runInline(
      {
        'random.spec.ts': `
import { test, expect } from '$FIXTURES';
test('gets a random address', async ({ inbox }) => {
  console.log('INBOX ' + JSON.stringify({ id: inbox.id, address: inbox.address, localPart: inbox.localPart }));
  expect(inbox.localPart).not.toContain('gets-a-random-address');
});
`,
      },
      { inboxkit: { baseUrl: server.url }, env: smtpEnv(server) },
    );
    const result = resultOf(run, 'gets a random address');
    expect(result.status, result.errors.join('\n')).toBe('passed');
  } finally {
    await server.close();
  }
});

test('without a reachable service the first test that uses an inbox says how to start one', { tag: '@heavy' }, async () => {
  const run = await runInline(
    {
      'down.spec.ts': `
import { test } from '$FIXTURES';
test('needs a service', async ({ inbox }) => {
  console.log(inbox.address);
});
`,
    },
    { inboxkit: { baseUrl: 'http://127.0.0.1:9' } },
  );
  const result = resultOf(run, 'needs a service');
  expect(result.status).toBe('failed');
  expect(result.errors.join('\n')).toContain('inboxkit: cannot reach the inbox service at http://127.0.0.1:9');
});
