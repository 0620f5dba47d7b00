/**
 * After a failed wait, the test's error says where to look at the inbox — and
 * never with a credential in it: a kept inbox (`keepOnFailure`) in the viewer,
 * any other in the report, where its emails are attached (the inbox itself is
 * deleted when the test ends, so a viewer link would lead nowhere). With
 * several inboxes, steps and attachments name the inbox they belong to.
 */
import { expect } from '@playwright/test';
import { resultOf, runInline, smtpEnv, test } from './harness.ts';

type Report = { suites: Array<{ specs: Array<{ tests: Array<{ annotations: Array<{ type: string; description?: string }> }> }> }> };
const annotationsOf = (reportText: string) =>
  (JSON.parse(reportText) as Report).suites.flatMap((s) => s.specs.flatMap((spec) => spec.tests.flatMap((t) => t.annotations)));

test('a failed wait on a kept inbox names its viewer link in the error and the report, with no token in either', { tag: '@heavy' }, async ({ server }) => {
  const run = await runInline(
    {
      'viewer.spec.ts': `
import { test } from '$FIXTURES';
import { leak } from './send.ts';
test('waits in vain', async ({ inbox }) => {
  await leak('inbox', JSON.stringify({ id: inbox.id, token: inbox.handle.token }));
  await inbox.waitForMessage({ subject: 'Never sent' }, { timeout: 300 });
});
`,
    },
    { inboxkit: { baseUrl: server.url, keepOnFailure: true }, env: smtpEnv(server) },
  );
  const result = resultOf(run, 'waits in vain');
  expect(result.status).toBe('failed');
  const inbox = JSON.parse(run.out.get('inbox') ?? '{}') as { id: string; token: string };
  const link = `${server.url}/#inbox=${inbox.id}`;
  expect(result.errors.join('\n')).toContain(`Look at the inbox in the viewer (kept by keepOnFailure; while its service runs): ${link}`);
  const annotations = annotationsOf(run.reportText);
  expect(annotations).toContainEqual({ type: 'inboxkit viewer', description: expect.stringContaining(link) });
  expect(annotations).toContainEqual({ type: 'inboxkit: kept inbox', description: expect.stringContaining(`viewer: ${link}`) });
  expect(result.stdout).not.toContain(link);
  expect(run.reportText).not.toContain(inbox.token);

  // Kept, the inbox is still there for the viewer while the service runs.
  const res = await fetch(`${server.apiUrl}/inboxes/${inbox.id}`, { headers: { 'X-Inbox-Token': inbox.token } });
  expect(res.status).toBe(200);
});

test('a failed wait on an inbox that is not kept points at the emails attached to the report, not at a viewer link that would lead nowhere', { tag: '@heavy' }, async ({ server }) => {
  const run = await runInline(
    {
      'report.spec.ts': `
import { test } from '$FIXTURES';
import { leak, send } from './send.ts';
test('gets the wrong email', async ({ inbox }) => {
  await leak('inbox', JSON.stringify({ id: inbox.id, address: inbox.address, token: inbox.handle.token }));
  await send({ to: inbox.address, subject: 'Welcome', text: 'x' });
  await inbox.waitForMessage({ subject: 'Password reset' }, { timeout: 1_500 });
});
`,
    },
    { inboxkit: { baseUrl: server.url }, env: smtpEnv(server) },
  );
  const result = resultOf(run, 'gets the wrong email');
  expect(result.status).toBe('failed');
  const inbox = JSON.parse(run.out.get('inbox') ?? '{}') as { id: string; address: string; token: string };
  expect(result.errors.join('\n')).toContain(`Every email ${inbox.address} received is attached to this test in the report`);
  expect(run.reportText).not.toContain(`#inbox=${inbox.id}`);
  expect(annotationsOf(run.reportText).map((a) => a.type)).not.toContain('inboxkit viewer');
  expect(result.attachments.map((a) => a.name)).toContain('received #1 — Welcome.html');
  expect(run.reportText).not.toContain(inbox.token);
});

test('with several inboxes, each wait step and each attached email names its inbox', { tag: '@heavy' }, async ({ server }) => {
  const run = await runInline(
    {
      'several.spec.ts': `
import { test, expect } from '$FIXTURES';
import { leak, send } from './send.ts';
test('two people', async ({ inbox, createInbox }) => {
  const bob = await createInbox();
  await leak('addresses', JSON.stringify([inbox.address, bob.address]));
  await send({ to: inbox.address, subject: 'For Alice', text: 'a' });
  await send({ to: bob.address, subject: 'For Bob', text: 'b' });
  await inbox.waitForMessage({ subject: 'For Alice' });
  await bob.waitForMessage({ subject: 'For Bob' });
  await send({ to: bob.address, subject: 'Late for Bob', text: 'c' });
  expect(await bob.handle.peek({ subject: 'Late for Bob' }, { within: 10_000 })).not.toBeNull();
  expect('done').toBe('failed on purpose');
});
`,
    },
    { inboxkit: { baseUrl: server.url }, env: smtpEnv(server) },
  );
  const result = resultOf(run, 'two people');
  expect(result.status).toBe('failed');
  const [alice, bob] = JSON.parse(run.out.get('addresses') ?? '[]') as [string, string];
  expect(result.steps).toContainEqual(expect.stringMatching(new RegExp(`^wait for email to ${alice.replace(/[.+]/g, '\\$&')}: `)));
  expect(result.steps).toContainEqual(expect.stringMatching(new RegExp(`^wait for email to ${bob.replace(/[.+]/g, '\\$&')}: `)));
  const names = result.attachments.map((a) => a.name);
  expect(names).toContain(`email 1 to ${alice} — For Alice.html`);
  expect(names).toContain(`email 2 to ${bob} — For Bob.html`);
  expect(names).toContain(`received to ${bob} #2 — Late for Bob.html`);
});
