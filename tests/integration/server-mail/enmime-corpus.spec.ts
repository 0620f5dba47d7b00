import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { simpleParser } from 'mailparser';
import { join, relative } from 'node:path';
import type { Message } from '../../../src/wire/schemas.ts';
import { expect, startMailServer, test } from './harness.ts';
import { printFigure } from '../../support/figures.ts';
import { corpusDir, corpusSkip } from '../../support/corpora.ts';

const enmime = corpusDir('mime-enmime');

function rawFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return rawFiles(path);
    return name.endsWith('.raw') ? [path] : [];
  });
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

test('every message of the enmime corpus goes through SMTP intake and the API without crashing the server, and every attachment downloads byte for byte', async () => {
  test.setTimeout(120_000);
  test.skip(enmime === null, corpusSkip('mime-enmime'));
  const corpus = enmime!;
  const files = rawFiles(corpus).sort();
  expect(files.length).toBeGreaterThan(50);
  const server = await startMailServer();
  try {
    const inbox = await server.createInbox();
    const refused: string[] = [];
    let stored = 0;
    let checked = 0;
    for (const file of files) {
      const name = relative(corpus, file);
      try {
        await server.send({ envelope: { from: 'corpus@example.com', to: [inbox.address] }, raw: readFileSync(file) });
      } catch (error) {
        refused.push(`${name}: ${(error as Error).message}`);
        continue;
      }
      const [latest] = await server.listMessages(inbox);
      expect(latest?.seq, `${name} was stored as the newest message`).toBe(stored + 1);
      stored++;
      const message = await server.getMessage(inbox, latest!.id);
      expect(typeof message.subject, name).toBe('string');
      const rawResponse = await server.api(`/messages/${message.id}/raw`, inbox.token);
      expect(rawResponse.status, `${name} raw`).toBe(200);
      // The reference: the stored source parsed again, here, by the same MIME parser.
      const source = Buffer.from(await rawResponse.arrayBuffer());
      const reference = await simpleParser(source, { keepCidLinks: true, skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true }).catch(() => null);
      const downloaded: string[] = [];
      for (const attachment of (message as Message).attachments) {
        const res = await server.api(`/messages/${message.id}/attachments/${attachment.id}`, inbox.token);
        expect(res.status, `${name} attachment ${attachment.filename}`).toBe(200);
        const bytes = new Uint8Array(await res.arrayBuffer());
        expect(bytes.byteLength).toBe(attachment.size);
        downloaded.push(sha256(bytes));
      }
      if (reference) expect(downloaded, `${name}: the attachments' SHA-256 against the source's parts`).toEqual(reference.attachments.map((a) => sha256(a.content)));
      checked += downloaded.length;
    }
    const fallbacks = server.logs.filter((l) => String(l['msg']).includes('could not be fully parsed')).length;
    printFigure(`enmime corpus: ${stored} of ${files.length} messages stored, ${refused.length} refused, ${fallbacks} stored with the fallback reading, ${checked} attachments identical to the source's`);
    expect(checked).toBeGreaterThan(10);
    expect((await fetch(new URL('/healthz', server.apiUrl))).status).toBe(200);
    expect(refused).toEqual([]);
  } finally {
    await server.close();
  }
});
