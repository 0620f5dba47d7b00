/**
 * The SMS channels go through the one intake SMTP uses: the stored-bytes
 * bound holds against an SMS flood, SMS copies are counted in /metrics by
 * provider, and a phone's number is not an address SMTP can find or fill.
 */
import { connect } from 'node:net';
import { expect, test } from '@playwright/test';
import { startServer } from '../../../src/server/index.ts';

async function phoneOf(apiUrl: string): Promise<{ id: string; number: string; token: string }> {
  const response = await fetch(`${apiUrl}/phones`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const { data } = (await response.json()) as { data: { id: string; phoneNumber: string; token: string } };
  return { id: data.id, number: data.phoneNumber, token: data.token };
}

function text(apiUrl: string, to: string, body: string): Promise<Response> {
  return fetch(`${apiUrl}/sms`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to, from: 'Flood', text: body }) });
}

test('an SMS flood is held to the stored-bytes bound: the flooded phone loses its oldest texts, another phone keeps its own', async () => {
  const server = await startServer({ port: 0, smtpPort: 0, maxMessageBytes: 32 * 1024, maxStoredBytes: 64 * 1024 });
  try {
    const quiet = await phoneOf(server.apiUrl);
    expect((await text(server.apiUrl, quiet.number, 'Your code is 123456')).status).toBe(200);
    const flooded = await phoneOf(server.apiUrl);
    const body = 'x'.repeat(1500);
    for (let i = 0; i < 120; i++) expect((await text(server.apiUrl, flooded.number, body)).status).toBe(200);
    const list = async (phone: { id: string; token: string }) => {
      const response = await fetch(`${server.apiUrl}/inboxes/${phone.id}/messages?limit=100`, { headers: { 'x-inbox-token': phone.token } });
      return ((await response.json()) as { data: { items: Array<{ size: number; seq: number }> } }).data.items;
    };
    const kept = await list(flooded);
    const storedBytes = kept.reduce((sum, m) => sum + m.size, 0);
    expect(storedBytes, 'the flooded phone holds no more than the bound').toBeLessThanOrEqual(64 * 1024);
    expect(Math.min(...kept.map((m) => m.seq)), 'its oldest texts went').toBeGreaterThan(1);
    expect(await list(quiet)).toHaveLength(1);
  } finally {
    await server.close();
  }
});

test('SMS copies are counted in /metrics by the provider they came through, beside SMTP\'s', async () => {
  const server = await startServer({ port: 0, smtpPort: 0, metrics: true });
  try {
    const phone = await phoneOf(server.apiUrl);
    await text(server.apiUrl, phone.number, 'code 1');
    await text(server.apiUrl, phone.number, 'code 2');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/inboxkit_intake_stored_total\{channel="inboxkit"\} 2/);
    expect(metrics).toMatch(/inboxkit_intake_stored_total\{channel="twilio"\} 0/);
    expect(metrics).toMatch(/inboxkit_intake_stored_total\{channel="smtp"\} 0/);
  } finally {
    await server.close();
  }
});

/** Runs an SMTP conversation up to RCPT TO and returns the RCPT reply. */
async function rcptReply(port: number, recipient: string): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let buffer = '';
  let waiting: (() => void) | null = null;
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    waiting?.();
  });
  // One reply: lines until the last one, whose code is followed by a space.
  const reply = () =>
    new Promise<string>((resolve) => {
      const check = () => {
        const match = /(?:^|\r\n)(\d{3} [^\r\n]*)\r\n$/.exec(buffer);
        if (!match) return;
        waiting = null;
        buffer = '';
        resolve(match[1] ?? '');
      };
      waiting = check;
      check();
    });
  await reply();
  socket.write('EHLO probe.test\r\n');
  await reply();
  socket.write('MAIL FROM:<probe@probe.test>\r\n');
  await reply();
  socket.write(`RCPT TO:<${recipient}>\r\n`);
  const answer = await reply();
  socket.end('QUIT\r\n');
  return answer;
}

test('SMTP cannot find or fill a phone: RCPT TO a phone\'s number answers as a free number does, and nothing reaches the phone', async () => {
  const server = await startServer({ port: 0, smtpPort: 0 });
  try {
    const phone = await phoneOf(server.apiUrl);
    const domain = server.config.domains[0];
    const toPhone = await rcptReply(server.smtpPort, `${phone.number}@${domain}`);
    const toFree = await rcptReply(server.smtpPort, `+12025550199@${domain}`);
    expect(toPhone.slice(0, 9)).toBe('550 5.1.1');
    expect(toPhone.replace(phone.number, 'N')).toBe(toFree.replace('+12025550199', 'N'));
  } finally {
    await server.close();
  }
});
