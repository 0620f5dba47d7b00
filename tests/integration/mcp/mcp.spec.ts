/**
 * The MCP server, driven by the SDK's own client over stdio (`inboxkit mcp`)
 * and over Streamable HTTP (`/mcp` of `inboxkit serve`), against a real
 * service with real SMTP: the whole flow, the credential boundary, and bad
 * input as tool errors.
 */
import { test, expect } from '@playwright/test';
import type { ChildProcess } from 'node:child_process';
import { spawnServe } from '../../support/serve.ts';
import type { Ready } from '../../support/serve.ts';
import { call, connect, inboxIdOf, messageIdOf, sendConfirmation } from './support.ts';
import type { Connected, McpTransportKind } from './support.ts';

const ALICE = 'tm_alicealicealicealicealice0001';
const BOB = 'tm_bobbobbobbobbobbobbobbobbob01';

let service: Ready;
let child: ChildProcess | undefined;
const open: Connected[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  const served = await spawnServe(['--api-key', ALICE, '--api-key', BOB, '--rate-limit', 'off'], { onSpawn: (c) => (child = c) });
  service = served.ready;
});

test.afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
});

test.afterAll(() => {
  child?.kill('SIGTERM');
});

async function connected(kind: McpTransportKind, key?: string): Promise<Connected> {
  const c = await connect(kind, service, key);
  open.push(c);
  return c;
}

for (const kind of ['stdio', 'http'] as const) {
  // Over stdio every connection spawns `inboxkit mcp`: left to npm test, out of test:quick.
  test.describe(`over ${kind}`, kind === 'stdio' ? { tag: '@heavy' } : {}, () => {
    test('an agent creates an inbox, waits for the email sent over SMTP, reads its code and confirm link, and deletes the inbox', async () => {
      const { client } = await connected(kind, ALICE);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['create_inbox', 'wait_for_message', 'get_message', 'list_messages', 'get_link', 'get_code', 'delete_inbox', 'check_compatibility']));
      const wait = tools.find((t) => t.name === 'wait_for_message')!;
      expect(wait.description).toContain('Example:');
      expect(Object.keys(wait.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['inbox_id', 'subject', 'from', 'text', 'timeout_seconds']));

      const created = await call(client, 'create_inbox', { label: `flow over ${kind}` });
      expect(created.isError).toBe(false);
      expect(created.text).not.toMatch(/tmi_/);
      const inbox = inboxIdOf(created.text);

      // The wait starts first and is woken by the mail.
      const waiting = call(client, 'wait_for_message', { inbox_id: inbox.id, subject: 'confirm', timeout_seconds: 30 });
      await sendConfirmation(service, inbox.address);
      const got = await waiting;
      expect(got.isError, got.text).toBe(false);
      expect(got.text).toContain('Subject: Confirm your email');
      expect(got.text).toMatch(/^Code: 482913\b/m);
      expect(got.text).toContain('"Confirm email" → https://app.acme.example/confirm?token=t0k3n');
      expect(got.text).not.toContain('<b');
      if (process.env.SHOW) console.log(got.text);
      const messageId = messageIdOf(got.text);

      const link = await call(client, 'get_link', { message_id: messageId, text: 'confirm' });
      expect(link).toEqual({ text: 'https://app.acme.example/confirm?token=t0k3n', isError: false });
      const code = await call(client, 'get_code', { message_id: messageId });
      expect(code.text).toMatch(/^Code: 482913/);
      const compatibility = await call(client, 'check_compatibility', { message_id: messageId, clients: ['gmail.desktop-webmail', 'outlook.windows'] });
      expect(compatibility.isError, compatibility.text).toBe(false);
      expect(compatibility.text).toMatch(/with 2 client\(s\)/);
      expect(compatibility.text).toMatch(/^- Gmail Desktop Webmail: ok$/m);
      expect(compatibility.text).toMatch(/^- Outlook Windows: ok \(partial: font-size\)$/m);
      const listed = await call(client, 'list_messages', { inbox_id: inbox.id });
      expect(listed.text).toContain(messageId);

      const deleted = await call(client, 'delete_inbox', { inbox_id: inbox.id });
      expect(deleted.text).toMatch(/Deleted inbox .* and its 1 message/);
      const after = await call(client, 'list_messages', { inbox_id: inbox.id });
      expect(after.isError).toBe(true);
      expect(after.text).toContain('call create_inbox');
    });

    test('a second credential cannot see the first one\'s inbox or its messages', async () => {
      const alice = (await connected(kind, ALICE)).client;
      const bob = (await connected(kind, BOB)).client;
      const inbox = inboxIdOf((await call(alice, 'create_inbox')).text);
      await sendConfirmation(service, inbox.address, '771204');
      const messageId = messageIdOf((await call(alice, 'wait_for_message', { inbox_id: inbox.id, timeout_seconds: 30 })).text);

      for (const [tool, args] of [
        ['wait_for_message', { inbox_id: inbox.id, timeout_seconds: 1 }],
        ['list_messages', { inbox_id: inbox.id }],
        ['delete_inbox', { inbox_id: inbox.id }],
        ['get_message', { message_id: messageId }],
        ['get_code', { message_id: messageId }],
      ] as const) {
        const answer = await call(bob, tool, args);
        expect(answer.isError, `${tool} for bob: ${answer.text}`).toBe(true);
        expect(answer.text).toMatch(/No (inbox|message) ".*" that this session can see/);
        expect(answer.text).not.toContain('771204');
      }
      expect((await call(bob, 'list_inboxes')).text).not.toContain(inbox.id);
      // Alice still has it.
      expect((await call(alice, 'get_code', { message_id: messageId })).text).toMatch(/^Code: 771204/);
    });

    test('bad input is a tool error that says what to do, and the server keeps serving', async () => {
      const { client } = await connected(kind, ALICE);
      const unknown = await call(client, 'wait_for_message', { inbox_id: 'inb_doesnotexist', timeout_seconds: 1 });
      expect(unknown).toMatchObject({ isError: true });
      expect(unknown.text).toMatch(/No inbox "inb_doesnotexist".*create_inbox/s);

      const inbox = inboxIdOf((await call(client, 'create_inbox')).text);
      const malformed = await call(client, 'wait_for_message', { inbox_id: inbox.id, subject: 42 });
      expect(malformed.isError).toBe(true);
      expect(malformed.text).toMatch(/subject/);
      const unknownMessage = await call(client, 'get_link', { message_id: 'msg_doesnotexist', text: 'Confirm' });
      expect(unknownMessage.isError).toBe(true);
      expect(unknownMessage.text).toMatch(/No message "msg_doesnotexist".*wait_for_message or list_messages/s);
      if (process.env.SHOW) console.log([unknown, malformed, unknownMessage].map((a) => a.text).join('\n---\n'));

      const tooLong = await call(client, 'wait_for_message', { inbox_id: inbox.id, timeout_seconds: 3600 });
      expect(tooLong.isError).toBe(true);
      expect(tooLong.text).toContain('timeout_seconds is at most 300');

      const timedOut = await call(client, 'wait_for_message', { inbox_id: inbox.id, subject: 'never sent', timeout_seconds: 1 });
      expect(timedOut.isError).toBe(true);
      expect(timedOut.text).toMatch(/call wait_for_message again/);
      if (process.env.SHOW) console.log([tooLong, timedOut].map((a) => a.text).join('\n---\n'));

      expect((await call(client, 'list_inboxes')).isError).toBe(false);
    });

    test('an agent creates a phone, and wait_for_message returns the SMS the app texted with its code', async () => {
      const { client } = await connected(kind, ALICE);
      const created = await call(client, 'create_phone', { country: 'FR' });
      expect(created.isError).toBe(false);
      const number = /^Phone: (\+\d+)$/m.exec(created.text)?.[1] ?? '';
      expect(number).toMatch(/^\+3363998\d{4}$/);
      const inbox = inboxIdOf(created.text);
      const waiting = call(client, 'wait_for_message', { inbox_id: inbox.id, timeout_seconds: 30 });
      const sent = await fetch(`${service.apiUrl}/sms`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${ALICE}` }, body: JSON.stringify({ to: number, from: 'Acme', text: '[Acme] 918273 is your sign-in code.' }) });
      expect(sent.status).toBe(200);
      expect((await waiting).text).toMatch(/^Code: 918273/m);
    });

    test('a wait cancelled by the MCP request stops waiting: the next email goes to the next wait', async () => {
      const { client } = await connected(kind, ALICE);
      const inbox = inboxIdOf((await call(client, 'create_inbox')).text);
      const controller = new AbortController();
      const cancelled = call(client, 'wait_for_message', { inbox_id: inbox.id, timeout_seconds: 60 }, { signal: controller.signal });
      await new Promise((r) => setTimeout(r, 500));
      controller.abort();
      await expect(cancelled).rejects.toThrow(/abort/i);
      // Were the first wait still running, it would take this message and the next wait would time out.
      await new Promise((r) => setTimeout(r, 300));
      await sendConfirmation(service, inbox.address, '550044');
      const next = await call(client, 'wait_for_message', { inbox_id: inbox.id, timeout_seconds: 30 });
      expect(next.text).toMatch(/^Code: 550044/m);
    });
  });
}
