/**
 * SMTP connection caps (issue 36, item 5), as real SMTP conversations on
 * loopback: a cap in total and one per client address, each refusal a 421
 * that names the cap, and behind a balancer (the PROXY protocol) the cap
 * counts the client's own address, never the balancer's.
 */
import { RawSmtp, expect, figure, test } from './helpers.ts';

/** Opens `n` conversations and reads each one's first reply. */
async function open(n: number, port: number, options: { localAddress?: string; proxyFrom?: string } = {}): Promise<Array<{ smtp: RawSmtp; code: number; text: string }>> {
  const out = [];
  for (let i = 0; i < n; i++) {
    const smtp = await RawSmtp.connect(port, '127.0.0.1', options);
    const reply = await smtp.reply();
    out.push({ smtp, code: reply.code, text: reply.text });
  }
  return out;
}

const endAll = (list: Array<{ smtp: RawSmtp }>) => list.forEach(({ smtp }) => smtp.end());

test.describe('with 6 connections per client address and 10 in total', () => {
  test.use({ harnessOptions: { smtpMaxConnections: 10, smtpMaxConnectionsPerAddress: 6 } });

  test('idle connections from one address past its cap are told 421 naming the cap, while another address is still served', async ({ harness }) => {
    const port = harness.server.smtpPort;
    const first = await open(7, port, { localAddress: '127.0.0.2' });
    try {
      expect(first.slice(0, 6).map((c) => c.code)).toEqual([220, 220, 220, 220, 220, 220]);
      expect(first[6]!.code).toBe(421);
      expect(first[6]!.text).toMatch(/4\.7\.0 Too many SMTP connections from your address 127\.0\.0\.2: the cap is 6 .*--smtp-max-connections-per-address/);
      await first[6]!.smtp.closed;
      const other = await open(1, port, { localAddress: '127.0.0.3' });
      expect(other[0]!.code).toBe(220);
      // The other address gets through the whole conversation.
      expect((await other[0]!.smtp.command('EHLO other.test')).code).toBe(250);
      endAll(other);
      figure('smtp caps', '6 idle connections from 127.0.0.2 held; the 7th told 421 naming the per-address cap; 127.0.0.3 served');
    } finally {
      endAll(first);
    }
  });

  test('a place freed by a closed connection is served again', async ({ harness }) => {
    const port = harness.server.smtpPort;
    const held = await open(6, port, { localAddress: '127.0.0.4' });
    try {
      held[0]!.smtp.write('QUIT\r\n');
      await held[0]!.smtp.closed;
      await expect.poll(async () => {
        const [next] = await open(1, port, { localAddress: '127.0.0.4' });
        next!.smtp.end();
        return next!.code;
      }).toBe(220);
    } finally {
      endAll(held);
    }
  });

  test('past the total cap every address is told 421 naming the node cap', async ({ harness }) => {
    const port = harness.server.smtpPort;
    const a = await open(5, port, { localAddress: '127.0.0.5' });
    const b = await open(5, port, { localAddress: '127.0.0.6' });
    try {
      expect([...a, ...b].every((c) => c.code === 220)).toBe(true);
      const [c] = await open(1, port, { localAddress: '127.0.0.7' });
      expect(c!.code).toBe(421);
      expect(c!.text).toMatch(/4\.7\.0 Too many SMTP connections to this node: the cap is 10 .*--smtp-max-connections\)/);
      await c!.smtp.closed;
    } finally {
      endAll([...a, ...b]);
    }
  });
});

test.describe('behind a balancer speaking the PROXY protocol', () => {
  test.use({ harnessOptions: { smtpMaxConnections: 50, smtpMaxConnectionsPerAddress: 3, smtpProxy: ['127.0.0.1'] } });

  test('the cap counts the client address of the PROXY header, never the balancer\'s', async ({ harness }) => {
    const port = harness.server.smtpPort;
    // All six come from the balancer's 127.0.0.1; three clients behind it.
    const alice = await open(3, port, { proxyFrom: '198.51.100.7' });
    const bob = await open(3, port, { proxyFrom: '203.0.113.9' });
    try {
      expect([...alice, ...bob].map((c) => c.code)).toEqual([220, 220, 220, 220, 220, 220]);
      const [aliceAgain] = await open(1, port, { proxyFrom: '198.51.100.7' });
      expect(aliceAgain!.code).toBe(421);
      expect(aliceAgain!.text).toContain('from your address 198.51.100.7: the cap is 3');
      const [carol] = await open(1, port, { proxyFrom: '192.0.2.33' });
      expect(carol!.code).toBe(220);
      endAll([carol!]);
    } finally {
      endAll([...alice, ...bob]);
    }
  });
});

test('the caps are on by default: 1000 per node, 100 per client address', async () => {
  const { resolveConfig } = await import('../../../src/server/index.ts');
  const config = resolveConfig({});
  expect(config.smtp.maxConnections).toBe(1000);
  expect(config.bounds.smtpMaxConnectionsPerAddress).toBe(100);
  expect(resolveConfig({ smtpMaxConnections: null, smtpMaxConnectionsPerAddress: null }).bounds.smtpMaxConnectionsPerAddress).toBeNull();
  expect(() => resolveConfig({ smtpMaxConnectionsPerAddress: 0 })).toThrow(/smtpMaxConnectionsPerAddress/);
});
