/**
 * A hostile email cannot make the authentication check hold the service:
 * thousands of DKIM signatures with distinct `l=` (each would hash the body
 * again) are verified only up to the bound, the rest reported as skipped with
 * the bound named, and the check runs in a worker, so `/healthz` keeps
 * answering throughout.
 */
import nodemailer from 'nodemailer';
import { test, expect, apiOf, KEY_A } from './fixtures.ts';

const SIGNATURES = 600;

/** A message of about 2 MiB whose header holds SIGNATURES DKIM signatures, each with its own body length `l=`. */
function floodedMessage(to: string): string {
  const body = `${'This line is part of a long body that every signature would hash. '.repeat(15)}\r\n`.repeat(2000);
  const signatures = Array.from({ length: SIGNATURES }, (_, i) => `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=s${i}.acme.example; s=sel; l=${body.length - i}; h=from:to:subject; bh=${Buffer.alloc(32, i % 256).toString('base64')}; b=${Buffer.alloc(256, i % 256).toString('base64')}`);
  return [...signatures, 'From: Acme <hello@acme.example>', `To: ${to}`, 'Subject: Many signatures', 'Content-Type: text/plain', '', body].join('\r\n');
}

test('a message with 600 DKIM signatures is checked within the bound while /healthz keeps answering', async ({ server }) => {
  test.setTimeout(120_000);
  const api = apiOf(server);
  const inbox = (await api('POST', '/inboxes', { bearer: KEY_A, body: {} })).body.data as { id: string; address: string };
  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true });
  await smtp.sendMail({ envelope: { from: 'bounce@acme.example', to: inbox.address }, raw: floodedMessage(inbox.address) });
  smtp.close();
  const id = ((await api('GET', `/inboxes/${inbox.id}/messages`, { bearer: KEY_A })).body.data as { items: Array<{ id: string }> }).items[0]!.id;

  let checking = true;
  const waits: number[] = [];
  const health = (async () => {
    while (checking) {
      const started = performance.now();
      const answer = await fetch(`${server.url}/healthz`);
      waits.push(performance.now() - started);
      expect(answer.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const answer = await api('POST', `/messages/${id}/authentication`, { bearer: KEY_A, body: { dns: {} } }).finally(() => (checking = false));
  await health;

  expect(answer.status).toBe(200);
  const dkim = answer.body.data.dkim as Array<{ domain: string; result: string; reason: string | null }>;
  expect(dkim).toHaveLength(SIGNATURES);
  expect(dkim.slice(0, 10).every((d) => d.result !== 'skipped')).toBe(true);
  expect(dkim.slice(10).every((d) => d.result === 'skipped')).toBe(true);
  expect(dkim[10]?.domain).toBe('s10.acme.example');
  expect(dkim[10]?.reason).toContain(`only the first 10 of ${SIGNATURES} DKIM signatures are verified`);
  // The event loop was never held: every health check answered, none waited for the check.
  expect(waits.length).toBeGreaterThan(0);
  expect(Math.max(...waits), `/healthz waits (ms): ${waits.map((w) => w.toFixed(0)).join(', ')}`).toBeLessThan(2_000);
});
