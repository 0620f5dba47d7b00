/**
 * The listener that serves SNS's signing certificate is bounded like every
 * port of a shared service: a few connections at once, none kept idle.
 */
import { connect } from 'node:net';
import { test, expect } from '@playwright/test';
import { createSnsSigning } from '../../../src/server/sms/sns-signing.ts';
import { makeSelfSigned } from '../../../src/server/smtp/self-signed.ts';

function portOf(url: string): number {
  return Number(new URL(url).port);
}

function closedWithin(port: number, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => (socket.destroy(), resolve(false)), ms);
    socket.once('close', () => (clearTimeout(timer), resolve(true)));
    socket.once('error', () => undefined);
  });
}

test('the certificate\'s listener serves its file, drops a connection past 64 at once, and the service\'s own ports list it', async () => {
  const ownPorts: number[] = [];
  const signing = createSnsSigning({ listenHost: '127.0.0.1', ownPorts, makeCertificate: (names) => makeSelfSigned(names) });
  const held: ReturnType<typeof connect>[] = [];
  try {
    const signed = await signing.sign({ Type: 'Notification', MessageId: 'm', TopicArn: 't', Message: 'x', Timestamp: new Date().toISOString() }, '2', '127.0.0.1');
    const port = portOf(signed.SigningCertURL!);
    expect(ownPorts).toContain(port);
    for (let i = 0; i < 64; i++) {
      const socket = connect({ host: '127.0.0.1', port });
      socket.on('error', () => undefined);
      held.push(socket);
      await new Promise((resolve) => socket.once('connect', resolve));
    }
    // Let the server accept all 64 before the next one comes.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await closedWithin(port, 5_000)).toBe(true);
  } finally {
    for (const socket of held) socket.destroy();
    await signing.close();
  }
});
