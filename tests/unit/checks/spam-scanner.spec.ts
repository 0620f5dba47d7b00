/**
 * The spam scanner's client in the service (issue 30): the spamd report table
 * read rule by rule (wrapped descriptions joined), local-only rules marked and
 * not counted, and the bound on scans in flight, against a real TCP listener
 * that never answers.
 */
import { createServer } from 'node:net';
import type { Socket } from 'node:net';
import { test, expect } from '@playwright/test';
import { MAX_SCANS_IN_FLIGHT, createSpamScanner, toSpamCheck } from '../../../src/server/spam/scanner.ts';
import { parseReportTable } from '../../../src/server/spam/spamd.ts';

/** The body of a real spamd 4.0.1 REPORT answer (the spammy test email, offline). */
const REPORT = `Spam detection software, running on the system "vm",
has identified this incoming email as possible spam.

Content analysis details:   (7.2 points, 5.0 required)

 pts rule name              description
---- ---------------------- --------------------------------------------------
-0.0 NO_RECEIVED            Informational: message has no Received headers
 0.1 TVD_PH_SEC             BODY: Message includes a phrase commonly used in phishing
                            mails
-0.0 NO_RELAYS              Informational: message was not relayed via SMTP
 1.8 DRUGS_ERECTILE         Refers to an erectile drug
 1.0 ADVANCE_FEE_3_NEW_MONEY Advance Fee fraud and lots of money
-1.0 ALL_TRUSTED            Passed through trusted hosts only via SMTP

`;

test('the report table is read rule by rule, wrapped descriptions joined', () => {
  expect(parseReportTable(REPORT)).toEqual([
    { name: 'NO_RECEIVED', score: -0, description: 'Informational: message has no Received headers' },
    { name: 'TVD_PH_SEC', score: 0.1, description: 'BODY: Message includes a phrase commonly used in phishing mails' },
    { name: 'NO_RELAYS', score: -0, description: 'Informational: message was not relayed via SMTP' },
    { name: 'DRUGS_ERECTILE', score: 1.8, description: 'Refers to an erectile drug' },
    { name: 'ADVANCE_FEE_3_NEW_MONEY', score: 1, description: 'Advance Fee fraud and lots of money' },
    { name: 'ALL_TRUSTED', score: -1, description: 'Passed through trusted hosts only via SMTP' },
  ]);
});

test('local-only rules are marked and left out of the score; the scanner\'s own total is kept apart', () => {
  const result = toSpamCheck('spamassassin', { score: 1.9, threshold: 5, rules: parseReportTable(REPORT) }, 12.4);
  expect(result.rules.filter((r) => r.localOnly).map((r) => r.name).sort()).toEqual(['ALL_TRUSTED', 'NO_RECEIVED', 'NO_RELAYS']);
  expect(result).toMatchObject({ score: 2.9, scannerScore: 1.9, threshold: 5, spam: false, durationMs: 12 });
  expect(result.rules[0]?.name).toBe('DRUGS_ERECTILE');
});

test(`at most ${MAX_SCANS_IN_FLIGHT} scans are held (sent or waiting their turn); one more is refused at once`, async () => {
  const sockets = new Set<Socket>();
  const silent = createServer((socket) => void sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const port = (silent.address() as { port: number }).port;
  try {
    const scanner = createSpamScanner({ url: `spamd://127.0.0.1:${port}`, timeoutMs: 500 });
    const raw = new TextEncoder().encode('Subject: x\r\n\r\nhi\r\n');
    const outcomes = await Promise.all(Array.from({ length: MAX_SCANS_IN_FLIGHT + 1 }, () => scanner.check(raw).then(() => 'scored', (e: Error) => e.message)));
    expect(outcomes.filter((o) => /did not answer within 500 ms/.test(o))).toHaveLength(MAX_SCANS_IN_FLIGHT);
    expect(outcomes.filter((o) => o.startsWith(`${MAX_SCANS_IN_FLIGHT} spam checks are already running`))).toHaveLength(1);
    // Once they ended, scans are accepted again.
    await expect(scanner.check(raw)).rejects.toThrow(/did not answer within 500 ms/);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
});
