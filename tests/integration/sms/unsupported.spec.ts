/**
 * The client against servers without phones (a hosted service, an older
 * inboxkit): a typed error, never a crash; and the local service keeps phone
 * numbers for phones.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect } from '@playwright/test';
import { PhonesUnsupportedError, createClient } from '../../../src/client/index.ts';
import { startServer } from '../../../src/server/index.ts';

test('a server that answers 404 to POST /phones gives PhonesUnsupportedError naming the endpoint', async () => {
  const server = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'not_found', message: 'No route' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, retry: { maxRetries: 0 } });
  try {
    const error = await client.phones.create().then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(PhonesUnsupportedError);
    expect((error as PhonesUnsupportedError).status).toBe(404);
    expect((error as Error).message).toContain('POST /phones');
    await expect(client.phones.create({ country: 'XX' as never })).rejects.toThrow(/country "XX" is not offered; use one of US, CA, AU, FR/);
  } finally {
    await client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

test('an email inbox cannot take a phone number as its local part, and a phone\'s inbox carries its phoneNumber', async () => {
  const server = await startServer({ port: 0, smtpPort: 0 });
  const client = createClient({ baseUrl: server.url });
  try {
    // An email local part never starts with '+': a phone's address can only be made by POST /phones.
    await expect(client.inboxes.create({ localPart: '+12025550123' })).rejects.toThrow(/400 validation_error: localPart/);
    const phone = await client.phones.create({ country: 'AU' });
    const again = await client.inboxes.get(phone.id, { inboxToken: phone.token! });
    expect(again.phoneNumber).toBe(phone.phoneNumber);
    expect(again.localPart).toBe(phone.phoneNumber);
  } finally {
    await client.close();
    await server.close();
  }
});
