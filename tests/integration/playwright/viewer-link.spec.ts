/**
 * A failed test names each inbox's viewer link, in the report (an annotation),
 * in the error of a failed wait, and in the keepOnFailure notice (the
 * `inboxkit: kept inbox` annotation) — and never with a credential in it.
 */
import { expect } from '@playwright/test';
import { resultOf, runInline, smtpEnv, test } from './harness.ts';

test('a failed wait names the inbox viewer link in its error and the report, with no token in either', async ({ server }) => {
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
  expect(result.errors.join('\n')).toContain(`Look at the inbox in the viewer: ${link}`);
  const report = JSON.parse(run.reportText) as { suites: Array<{ specs: Array<{ tests: Array<{ annotations: Array<{ type: string; description?: string }> }> }> }> };
  const annotations = report.suites.flatMap((s) => s.specs.flatMap((spec) => spec.tests.flatMap((t) => t.annotations)));
  expect(annotations).toContainEqual({ type: 'inboxkit viewer', description: expect.stringContaining(link) });
  expect(annotations).toContainEqual({ type: 'inboxkit: kept inbox', description: expect.stringContaining(`viewer: ${link}`) });
  expect(result.stdout).not.toContain(link);
  expect(run.reportText).not.toContain(inbox.token);

  // Kept, the inbox is still there for the viewer while the service runs.
  const res = await fetch(`${server.apiUrl}/inboxes/${inbox.id}`, { headers: { 'X-Inbox-Token': inbox.token } });
  expect(res.status).toBe(200);
});
