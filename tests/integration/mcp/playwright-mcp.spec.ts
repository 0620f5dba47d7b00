/**
 * The pairing a user sets up: an agent host with Playwright MCP (the browser)
 * and inboxkit's MCP server (the inbox). A scripted SDK client plays the model:
 * it reads Playwright MCP's page snapshots to find the fields, and signs up in
 * the example app, confirms through the emailed link, then signs in with an
 * emailed code, each read through inboxkit's MCP server.
 */
import { test, expect, chromium } from '@playwright/test';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startExampleApp } from '../../../examples/app/app.ts';
import type { ExampleApp } from '../../../examples/app/app.ts';
import { spawnServe } from '../../support/serve.ts';
import type { Ready } from '../../support/serve.ts';
import { call, connect, inboxIdOf, messageIdOf } from './support.ts';
import type { Connected } from './support.ts';

const KEY = 'tm_agentagentagentagentagent0001';
/** Debian's Chromium where installed, else the one `npm test` installs for @playwright/test (tests/support/ensure-browser.ts). */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p)) ?? chromium.executablePath();

let service: Ready;
let child: ChildProcess | undefined;
let app: ExampleApp;

test.beforeAll(async () => {
  service = (await spawnServe(['--api-key', KEY, '--rate-limit', 'off'], { onSpawn: (c) => (child = c) })).ready;
  app = await startExampleApp({ smtpHost: service.smtpHost, smtpPort: service.smtpPort });
});

test.afterAll(async () => {
  await app?.close();
  child?.kill('SIGTERM');
});

/** Playwright MCP over stdio, with the system's Chromium, headless. */
async function playwrightMcp(outputDir: string): Promise<Client> {
  // The package's bin (its exports map does not list cli.js), found next to its package.json.
  const cli = path.join(path.dirname(createRequire(import.meta.url).resolve('@playwright/mcp/package.json')), 'cli.js');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli, '--headless', '--browser', 'chromium', '--no-sandbox', '--isolated', '--output-dir', outputDir, '--executable-path', CHROMIUM],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'scripted-agent', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** A Playwright MCP tool's text answer. */
async function browser(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n');
  if (result.isError) throw new Error(`${name} failed: ${text}`);
  return text;
}

/** The ref of an element in a page snapshot, as a model would read it: role and accessible name. */
function ref(snapshot: string, role: string, name: string): string {
  const found = new RegExp(`- ${role} "${name}"[^\\n]*\\[ref=(\\w+)\\]`).exec(snapshot)?.[1];
  if (!found) throw new Error(`no ${role} "${name}" in the snapshot:\n${snapshot}`);
  return found;
}

test('an agent signs up in the example app through Playwright MCP, confirms by the emailed link, and signs in with the emailed code read through inboxkit', { tag: '@heavy' }, async () => {
  test.setTimeout(120_000);
  const pw = await playwrightMcp(test.info().outputPath('playwright-mcp'));
  let inboxkit: Connected | undefined;
  try {
    inboxkit = await connect('stdio', service, KEY);
    const mail = inboxkit.client;
    const inbox = inboxIdOf((await call(mail, 'create_inbox', { label: 'agent sign-up' })).text);

    // Sign up.
    await browser(pw, 'browser_navigate', { url: `${app.url}/signup` });
    let page = await browser(pw, 'browser_snapshot');
    await browser(pw, 'browser_type', { element: 'Email field', target: ref(page, 'textbox', 'Email'), text: inbox.address });
    await browser(pw, 'browser_type', { element: 'Password field', target: ref(page, 'textbox', 'Password'), text: 'correct horse battery staple' });
    await browser(pw, 'browser_click', { element: 'Create account button', target: ref(page, 'button', 'Create account') });

    const confirmation = await call(mail, 'wait_for_message', { inbox_id: inbox.id, subject: 'Confirm your email', timeout_seconds: 30 });
    expect(confirmation.isError, confirmation.text).toBe(false);
    const link = await call(mail, 'get_link', { message_id: messageIdOf(confirmation.text), text: 'Confirm email' });
    expect(link.text).toMatch(new RegExp(`^${app.url}/`));
    page = await browser(pw, 'browser_navigate', { url: link.text });
    page = await browser(pw, 'browser_snapshot');
    expect(page).toContain('Email confirmed');

    // Sign out, then sign in with a code.
    await browser(pw, 'browser_click', { element: 'Sign out button', target: ref(page, 'button', 'Sign out') });
    expect(await browser(pw, 'browser_snapshot')).not.toContain('Signed in as');
    await browser(pw, 'browser_navigate', { url: `${app.url}/login` });
    page = await browser(pw, 'browser_snapshot');
    await browser(pw, 'browser_type', { element: 'Email field', target: ref(page, 'textbox', 'Email'), text: inbox.address });
    await browser(pw, 'browser_click', { element: 'Email me a code button', target: ref(page, 'button', 'Email me a code') });
    const codeMail = await call(mail, 'wait_for_message', { inbox_id: inbox.id, text: 'code', timeout_seconds: 30 });
    expect(codeMail.isError, codeMail.text).toBe(false);
    const code = /^Code: (\S+)/m.exec((await call(mail, 'get_code', { message_id: messageIdOf(codeMail.text), length: 6 })).text)?.[1];
    expect(code).toMatch(/^\d{6}$/);
    page = await browser(pw, 'browser_snapshot');
    await browser(pw, 'browser_type', { element: 'Code field', target: ref(page, 'textbox', 'Code'), text: code!, submit: true });
    page = await browser(pw, 'browser_snapshot');
    expect(page).toContain('You are signed in');
    expect(page).toContain(`Signed in as ${inbox.address}`);

    expect((await call(mail, 'delete_inbox', { inbox_id: inbox.id })).isError).toBe(false);
  } finally {
    await inboxkit?.close();
    await pw.close();
  }
});
