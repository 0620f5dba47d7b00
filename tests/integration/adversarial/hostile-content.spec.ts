/**
 * Hostile content: the enmime corpus and generated pathological MIME go
 * through the intake without a crash, each parse bounded in time and memory,
 * the server responsive meanwhile; CR, LF and NUL in subjects, filenames and
 * ids never forge a stream event or an HTTP header.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import { join, relative } from 'node:path';
import { parseMessage } from '../../../src/server/mail/parse.ts';
import type { Message } from '../../../src/wire/schemas.ts';
import { expect, figure, openStream, sendRaw, test } from './helpers.ts';
import type { Harness } from './helpers.ts';
import { corpusDir, corpusSkip } from '../../support/corpora.ts';

const enmime = corpusDir('mime-enmime');

function rawFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return rawFiles(path);
    return name.endsWith('.raw') ? [path] : [];
  });
}

/** Samples the API's responsiveness and the heap while work runs. */
function watch(h: Harness) {
  let running = true;
  let maxLatency = 0;
  let answered = 0;
  let peakHeap = process.memoryUsage().heapUsed;
  const baseHeap = peakHeap;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${h.server.url}/healthz`);
      await res.arrayBuffer();
      if (res.status === 200) answered++;
      maxLatency = Math.max(maxLatency, performance.now() - started);
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { maxLatency, answered, heapGrowthMb: (peakHeap - baseHeap) / 1024 / 1024 };
    },
  };
}

async function readBack(h: Harness, inbox: { id: string; token: string }, seq: number, label: string): Promise<Message> {
  const list = await h.call(`/inboxes/${inbox.id}/messages?limit=1`, { headers: { 'x-inbox-token': inbox.token } });
  const [latest] = (list.json as { data: { items: Array<{ id: string; seq: number }> } }).data.items;
  expect(latest?.seq, `${label} stored as the newest message`).toBe(seq);
  const full = await h.call(`/messages/${latest!.id}`, { headers: { 'x-inbox-token': inbox.token } });
  expect(full.status, `${label}: GET /messages/{id}`).toBe(200);
  return (full.json as { data: Message }).data;
}

test('every message of the enmime corpus is parsed in bounded time and goes through intake and the API; the server stays responsive', async ({ harness }) => {
  test.setTimeout(180_000);
  test.skip(enmime === null, corpusSkip('mime-enmime'));
  const corpus = enmime!;
  const files = rawFiles(corpus).sort();
  expect(files.length).toBeGreaterThan(50);
  let maxParse = 0;
  let slowest = '';
  let fallbacks = 0;
  for (const file of files) {
    const started = performance.now();
    const { fallbackReason } = await parseMessage(readFileSync(file), { envelopeFrom: 'corpus@adversary.test' });
    const took = performance.now() - started;
    if (fallbackReason) fallbacks++;
    if (took > maxParse) [maxParse, slowest] = [took, relative(corpus, file)];
  }
  const inbox = await harness.createInbox();
  const watcher = watch(harness);
  let seq = 0;
  const refused: string[] = [];
  for (const file of files) {
    const name = relative(corpus, file);
    const raw = readFileSync(file).toString('latin1');
    const reply = await sendRaw(harness.server.smtpPort, 'corpus@adversary.test', [inbox.address], raw);
    if (reply.code !== 250) {
      // Only a clean SMTP refusal is acceptable, never a crash or a dropped connection.
      expect(reply.code, name).toBeGreaterThanOrEqual(500);
      refused.push(`${name}: ${reply.code}`);
      continue;
    }
    seq++;
    await readBack(harness, inbox, seq, name);
  }
  const { maxLatency, answered, heapGrowthMb } = await watcher.stop();
  expect(answered).toBeGreaterThan(0);
  expect((await harness.call('/domains')).status).toBe(200);
  figure(
    'hostile content: enmime corpus',
    `${files.length} messages, 0 crashes, ${seq} stored and readable, ${refused.length} refused (${refused.join(', ') || 'none'}), ${fallbacks} parsed by the fallback; max parse ${maxParse.toFixed(0)} ms (${slowest}); /healthz answered ${answered}× meanwhile, max ${maxLatency.toFixed(0)} ms; heap growth ${heapGrowthMb.toFixed(0)} MB`,
  );
});

/** Pathological MIME, generated. */
function pathological(to: string): Array<[string, string]> {
  const head = (subject: string, contentType: string) => `From: evil@adversary.test\r\nTo: ${to}\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\nContent-Type: ${contentType}\r\n\r\n`;
  const cases: Array<[string, string]> = [];

  let nested = 'innermost text\r\n';
  for (let i = 999; i >= 0; i--) nested = `--b${i}\r\nContent-Type: multipart/mixed; boundary="b${i + 1}"\r\n\r\n${i === 999 ? '' : ''}${nested}--b${i}--\r\n`;
  cases.push(['nesting 1000 levels deep', head('deep', 'multipart/mixed; boundary="b0"') + nested.replace(/^--b0\r\n/, '--b0\r\n')]);

  const parts = Array.from({ length: 10_000 }, (_, i) => `--p\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename="part-${i}.txt"\r\n\r\npart ${i}\r\n`).join('');
  cases.push(['10 000 parts', `${head('many parts', 'multipart/mixed; boundary="p"')}${parts}--p--\r\n`]);

  const manyHeaders = Array.from({ length: 20_000 }, (_, i) => `X-Header-${i}: value ${i}`).join('\r\n');
  cases.push(['20 000 header lines', `From: evil@adversary.test\r\nTo: ${to}\r\nSubject: many headers\r\n${manyHeaders}\r\n\r\nbody\r\n`]);

  const folded = Array.from({ length: 40_000 }, () => ' folded-continuation-line').join('\r\n');
  cases.push(['a 1 MB folded Subject header', `From: evil@adversary.test\r\nTo: ${to}\r\nSubject: huge${folded}\r\n\r\nbody\r\n`]);

  cases.push([
    'invalid and hostile charsets',
    `${head('=?x-no-such-charset?Q?broken=ZZ?= =?utf-8?B?!!!invalid-base64?= =?utf-7?Q?+AGEAYgBj-?=', 'multipart/alternative; boundary="c"')}` +
      '--c\r\nContent-Type: text/plain; charset="x-bogus-charset"\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n=FF=FE=00=00broken=\r\n=ZZ soft\r\n' +
      '--c\r\nContent-Type: text/html; charset=utf-7\r\n\r\n+ADw-script+AD4-alert(1)+ADw-/script+AD4-\r\n' +
      '--c\r\nContent-Type: text/plain; charset=iso-2022-jp\r\n\r\n\x1b$B\xff\xfe\x1b(B\r\n' +
      '--c\r\nContent-Type: text/plain; charset="utf-8"\r\nContent-Transfer-Encoding: base64\r\n\r\n%%%not base64 at all%%%\r\n--c--\r\n',
  ]);
  cases.push(['a boundary that never closes, with NUL bytes', `${head('unterminated', 'multipart/mixed; boundary="never"')}--never\r\nContent-Type: text/plain\r\n\r\nNUL\x00here\x00\r\n--never\r\nContent-Type: application/octet-stream\r\n\r\n${'\x00'.repeat(1000)}\r\n`]);
  cases.push(['an empty boundary and a parameter flood', `${head('params', `multipart/mixed; boundary=""; ${Array.from({ length: 5000 }, (_, i) => `p${i}=v${i}`).join('; ')}`)}--\r\n\r\nx\r\n----\r\n`]);
  cases.push(['RFC 2231 continuations, 5000 segments', `${head('rfc2231', 'multipart/mixed; boundary="r"')}--r\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; ${Array.from({ length: 5000 }, (_, i) => `filename*${i}*=utf-8''%E2%80%AE${i}`).join(';\r\n ')}\r\n\r\nx\r\n--r--\r\n`]);
  return cases;
}

test('generated pathological MIME (1000-deep nesting, 10k parts, huge headers, invalid charsets) is stored without a crash, each parse bounded, the server responsive', async ({ harness }) => {
  test.setTimeout(240_000);
  const inbox = await harness.createInbox();
  const cases = pathological(inbox.address);
  const watcher = watch(harness);
  const times: string[] = [];
  let maxParse = 0;
  let seq = 0;
  for (const [name, raw] of cases) {
    const parseStarted = performance.now();
    const { fallbackReason } = await parseMessage(Buffer.from(raw, 'latin1'), { envelopeFrom: 'evil@adversary.test', timeoutMs: 10_000 });
    const parseMs = performance.now() - parseStarted;
    maxParse = Math.max(maxParse, parseMs);
    const started = performance.now();
    const reply = await sendRaw(harness.server.smtpPort, 'evil@adversary.test', [inbox.address], raw);
    expect(reply.code, `${name}: ${reply.text}`).toBe(250);
    seq++;
    const message = await readBack(harness, inbox, seq, name);
    expect(typeof message.subject, name).toBe('string');
    const rawBack = await fetch(`${harness.server.apiUrl}/messages/${message.id}/raw`, { headers: { 'x-inbox-token': inbox.token } });
    expect(Buffer.from(await rawBack.arrayBuffer()).byteLength, `${name}: raw source kept`).toBeGreaterThanOrEqual(raw.length);
    times.push(`${name} ${(raw.length / 1024).toFixed(0)} KB: parse ${parseMs.toFixed(0)} ms${fallbackReason ? ` (fallback: ${fallbackReason.slice(0, 60)})` : ''}, intake ${(performance.now() - started).toFixed(0)} ms`);
  }
  const { maxLatency, answered, heapGrowthMb } = await watcher.stop();
  expect(answered).toBeGreaterThan(0);
  // Bounded: each parse ends (the parser's own timeout is 10 s); memory stays far from exhaustion.
  expect(maxParse).toBeLessThan(60_000);
  expect(heapGrowthMb).toBeLessThan(1024);
  figure('hostile content: pathological MIME', `${cases.length}/${cases.length} stored, 0 crashes; max parse ${maxParse.toFixed(0)} ms; /healthz answered ${answered}× meanwhile, max ${maxLatency.toFixed(0)} ms; heap growth ${heapGrowthMb.toFixed(0)} MB — ${times.join('; ')}`);
});

/** A raw HTTP GET, to see the response headers exactly as sent. */
function rawGet(url: string, path: string, headers: Record<string, string>): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`);
    });
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (data += d));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}

test('CR, LF and NUL in subjects, filenames and ids never forge a stream event or an HTTP header', async ({ harness }) => {
  const inbox = await harness.createInbox();
  const forged = 'hi\r\n\r\nevent: inbox.deleted\r\nid: 999\r\ndata: {"forged":true}\r\n\r\n\x00X-Injected: yes';
  const subject = `=?utf-8?B?${Buffer.from(forged).toString('base64')}?=`;
  const filename = `=?utf-8?B?${Buffer.from('a.txt"\r\nX-Injected: yes\r\n\r\n<script>').toString('base64')}?=`;
  const raw =
    `From: evil@adversary.test\r\nTo: ${inbox.address}\r\nSubject: ${subject}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="z"\r\n\r\n` +
    `--z\r\nContent-Type: text/plain\r\n\r\nbody\r\n--z\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename="${filename}"\r\n\r\nattached\r\n--z--\r\n`;

  const abort = new AbortController();
  const { events } = await openStream(`${harness.server.apiUrl}/inboxes/${inbox.id}/stream`, { 'x-inbox-token': inbox.token }, abort.signal);
  const seen: Array<{ event: string; id: string | null; data: string }> = [];
  let live!: () => void;
  const ready = new Promise<void>((resolve) => (live = resolve));
  const reading = (async () => {
    for await (const e of events) {
      if ('comment' in e) continue;
      seen.push(e);
      if (e.event === 'ready') live();
      if (e.event === 'message') break;
    }
  })();
  // Sent once the stream is live: a stream without Last-Event-ID carries only what commits after its ready.
  await ready;
  expect((await sendRaw(harness.server.smtpPort, 'evil@adversary.test', [inbox.address], raw)).code).toBe(250);
  await reading;
  abort.abort();
  expect(seen.map((e) => [e.event, e.id])).toEqual([
    ['ready', '0'],
    ['message', '1'],
  ]);
  const summary = JSON.parse(seen[1]!.data) as { id: string; subject: string };
  expect(summary.subject).toContain('event: inbox.deleted');

  const message = (await harness.call(`/messages/${summary.id}`, { headers: { 'x-inbox-token': inbox.token } })).json as { data: Message };
  const attachment = message.data.attachments[0]!;
  const responses = [
    await rawGet(harness.server.url, `/api/v1/messages/${summary.id}/attachments/${attachment.id}`, { 'X-Inbox-Token': inbox.token }),
    await rawGet(harness.server.url, `/api/v1/messages/${summary.id}/raw`, { 'X-Inbox-Token': inbox.token }),
    await rawGet(harness.server.url, `/api/v1/messages/${summary.id}%0D%0AX-Injected:%20yes`, { 'X-Inbox-Token': inbox.token }),
    await rawGet(harness.server.url, `/api/v1/messages/${summary.id}%00%0A`, { 'X-Inbox-Token': inbox.token }),
    await rawGet(harness.server.url, `/api/v1/inboxes/${inbox.id}/stream?lastEventId=1%0D%0Aevent:%20x`, { 'X-Inbox-Token': inbox.token }),
  ];
  for (const response of responses) {
    const headerBlock = response.slice(0, response.indexOf('\r\n\r\n'));
    expect(headerBlock).not.toMatch(/^x-injected/im);
    expect(headerBlock).not.toContain('\x00');
  }
  expect(responses[0]).toMatch(/^HTTP\/1\.1 200/);
  const disposition = responses[0]!.split('\r\n').filter((l) => /^content-disposition:/i.test(l));
  expect(disposition).toHaveLength(1);
  expect(disposition[0]).toMatch(/^content-disposition: attachment; .*filename\*=UTF-8''[^\s"]*$/i);
  expect(responses[2]).toMatch(/^HTTP\/1\.1 404/);
  expect(responses[3]).toMatch(/^HTTP\/1\.1 404/);
  expect(responses[4]).toMatch(/^HTTP\/1\.1 400/);
  figure('hostile content: CR/LF/NUL', 'a subject carrying a whole forged SSE event → 1 message event (id 1) and no other; a filename with CRLF → one Content-Disposition header; ids with %0D%0A and %00 → 404/400 JSON, 0 injected headers in 5 raw responses');
});
