/**
 * The provider table is the one list: the server mounts a route factory for
 * each row, inboxkitServer() hands the app each row's variable, the viewer
 * names each, and the docs list each.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { PROVIDERS, providerEnv, providerLabel } from '../../src/wire/providers.ts';
import type { ProviderRow } from '../../src/wire/providers.ts';
import { inboxkitServer } from '../../src/playwright/server.ts';

const root = join(import.meta.dirname, '../..');

test('every row with a variable is in the env inboxkitServer() hands the app, pointing at its mount', () => {
  const server = inboxkitServer({ port: 8025, smtpPort: 2525 });
  for (const row of PROVIDERS) {
    if (!row.env) continue;
    const origin = (row as ProviderRow).envForm === 'host' ? server.baseUrl.replace(/^http:\/\//, '') : server.baseUrl;
    expect(server.env[row.env], row.id).toBe(`${origin}${row.mount}`);
  }
  expect(Object.keys(providerEnv('http://x'))).toEqual(PROVIDERS.flatMap((row) => (row.env ? [row.env] : [])));
});

test('every row has a route factory in the server\'s table, and every row a label the viewer shows', () => {
  const table = readFileSync(join(root, 'src/server/routes/sms.handlers.ts'), 'utf8');
  for (const row of PROVIDERS) {
    expect(providerLabel(row.id)).toBe(row.label);
    if (row.id !== 'inboxkit') expect(table, row.id).toMatch(new RegExp(`['"]?${row.id}['"]?: create\\w+Routes`));
  }
});

test('every row\'s variable is named in its channel\'s guide (SMS: the phones guide, email: the email APIs guide), so a spec author finds it', () => {
  const guides = { sms: readFileSync(join(root, 'docs/phones.md'), 'utf8'), email: readFileSync(join(root, 'docs/email-apis.md'), 'utf8') };
  for (const row of PROVIDERS) if (row.env) expect(guides[row.channel], row.env).toContain(row.env);
});
