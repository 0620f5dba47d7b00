/**
 * Form bodies read within bounds: fields counted before any is decoded, bytes
 * counted as they arrive, each refusal naming its bound.
 */
import { test, expect } from '@playwright/test';
import { Hono } from 'hono';
import { FormError, parseForm } from '../../../src/server/http/form.ts';
import type { FormLimits } from '../../../src/server/http/form.ts';

/** An app whose one route answers the form it read, or the refusal. */
function formApp(limits?: FormLimits): Hono {
  const app = new Hono();
  app.post('/form', async (c) => {
    try {
      return c.json({ fields: await parseForm(c, limits) });
    } catch (error) {
      if (!(error instanceof FormError)) throw error;
      return c.json({ status: error.status, code: error.code, kind: error.kind, message: error.message }, error.status as 400);
    }
  });
  return app;
}

const urlencoded = (body: string | Buffer): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: body as BodyInit });

test('a form is read as browsers read it: repeated fields in order, + as a space, a stray % kept', async () => {
  const res = await formApp().request('/form', urlencoded('To=%2B15555550100&Body=Hello+world+%F0%9F%98%80&Tag=a&Tag=b&Odd=100%&Empty='));
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ fields: { To: '+15555550100', Body: 'Hello world 😀', Tag: ['a', 'b'], Odd: '100%', Empty: '' } });
});

test('a field named __proto__ is an ordinary field, not the prototype', async () => {
  const res = await formApp().request('/form', urlencoded('__proto__=x&constructor=y'));
  const read = (await res.json()) as { fields: Record<string, unknown> };
  expect(Object.entries(read.fields)).toEqual([['__proto__', 'x'], ['constructor', 'y']]);
});

test('a form of exactly the most fields is read; one more is refused with 413 naming the bound', async () => {
  const app = formApp({ maxFields: 10 });
  const ten = Array.from({ length: 10 }, (_, i) => `f${i}=${i}`).join('&');
  expect(((await (await app.request('/form', urlencoded(ten))).json()) as { fields: object }).fields).toHaveProperty('f9', '9');
  const res = await app.request('/form', urlencoded(`${ten}&f10=10`));
  expect(res.status).toBe(413);
  expect(await res.json()).toEqual({
    status: 413,
    code: 'payload_too_large',
    kind: 'fields',
    message: 'The form has more than 10 fields, the most this endpoint reads; send only the parameters the API takes.',
  });
});

test('a 100,000-field form is refused after counting no further than the bound, before any field is decoded', async () => {
  const body = Buffer.from(Array.from({ length: 100_000 }, (_, i) => `a${i}=1`).join('&'));
  const app = formApp({ maxBytes: 4 * 1024 * 1024 });
  // Count the scans for a separator and the decoders built while the form is refused.
  const indexOf = Buffer.prototype.indexOf;
  const Params = globalThis.URLSearchParams;
  let scans = 0;
  let decoders = 0;
  Buffer.prototype.indexOf = function (this: Buffer, ...args: Parameters<Buffer['indexOf']>) {
    scans++;
    return indexOf.apply(this, args);
  };
  globalThis.URLSearchParams = class extends Params {
    constructor(...args: ConstructorParameters<typeof URLSearchParams>) {
      super(...args);
      decoders++;
    }
  };
  let res: Response;
  try {
    res = await app.request('/form', urlencoded(body));
  } finally {
    Buffer.prototype.indexOf = indexOf;
    globalThis.URLSearchParams = Params;
  }
  expect(res.status).toBe(413);
  expect(((await res.json()) as { message: string }).message).toBe('The form has more than 256 fields, the most this endpoint reads; send only the parameters the API takes.');
  expect(decoders).toBe(0);
  // One scan per separator up to the bound, and the first: 257, not 100,000.
  expect(scans).toBeLessThanOrEqual(257);
  expect(scans).toBeGreaterThan(200);
});

test('a body over the byte bound is refused with 413 naming it, whether its length is declared or streamed', async () => {
  const app = formApp({ maxBytes: 1000 });
  const declared = await app.request('/form', urlencoded('x='.padEnd(1001, 'y')));
  expect(declared.status).toBe(413);
  expect(((await declared.json()) as { message: string }).message).toBe('The form is over the limit of 1000 bytes; send a smaller form.');
  const chunks = [new TextEncoder().encode('x='.padEnd(600, 'y')), new TextEncoder().encode(''.padEnd(600, 'z'))];
  const streamed = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
  const res = await app.request(new Request('http://localhost/form', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: streamed, duplex: 'half' } as RequestInit));
  expect(res.status).toBe(413);
  expect(((await res.json()) as { kind: string }).kind).toBe('bytes');
});

test('a multipart form is read within the same field bound, and a file part is refused naming the field', async () => {
  const app = formApp({ maxFields: 3 });
  const form = new FormData();
  form.append('To', '+15555550100');
  form.append('Body', 'hi');
  expect(await (await app.request('/form', { method: 'POST', body: form })).json()).toEqual({ fields: { To: '+15555550100', Body: 'hi' } });
  const many = new FormData();
  for (let i = 0; i < 4; i++) many.append(`f${i}`, 'x');
  const res = await app.request('/form', { method: 'POST', body: many });
  expect(res.status).toBe(413);
  const withFile = new FormData();
  withFile.append('MediaUrl', new Blob(['x']), 'x.txt');
  const file = await app.request('/form', { method: 'POST', body: withFile });
  expect(file.status).toBe(400);
  expect(((await file.json()) as { message: string }).message).toBe('The form field "MediaUrl" is a file; this endpoint takes text fields only.');
});

test('a body of another type reads as no fields, as Hono\'s parseBody does', async () => {
  const res = await formApp().request('/form', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  expect(await res.json()).toEqual({ fields: {} });
});
