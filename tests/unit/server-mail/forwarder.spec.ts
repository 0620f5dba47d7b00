import { test, expect } from '@playwright/test';
import { createForwarder, retryDelay } from '../../../src/server/forward/forwarder.ts';

function memoryLogger() {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (obj: object, msg = '') => void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

const job = { messageId: 'msg_1', inboxId: 'inb_1', to: 'me@example.com', envelopeFrom: 'app@example.com', raw: Buffer.from('Subject: x\r\n\r\nx\r\n') };

test('retry delays grow exponentially, stay within the bound, and jitter between half and all of the step', () => {
  const table: Array<[number, number, number]> = [
    // retry, random, expected
    [1, 0, 50],
    [1, 0.999999, 100],
    [2, 0, 100],
    [3, 1, 400],
    [10, 1, 1000],
    [10, 0, 500],
  ];
  for (const [retry, random, expected] of table) {
    expect(retryDelay(retry, 100, 1000, () => random), `retry ${retry}, random ${random}`).toBe(expected);
  }
});

test('a failing relay is retried until it accepts, and the success is logged', async () => {
  const { lines, logger } = memoryLogger();
  let calls = 0;
  const delivered = new Promise<void>((resolve) => {
    const forwarder = createForwarder({
      relayUrl: 'smtp://relay.test:25',
      logger,
      baseDelayMs: 1,
      maxDelayMs: 5,
      async send(message) {
        calls++;
        expect(message).toEqual({ from: 'app@example.com', to: 'me@example.com', raw: job.raw });
        if (calls < 3) throw new Error(`refused ${calls}`);
        resolve();
        setImmediate(() => void forwarder.close());
      },
    });
    forwarder.enqueue(job);
  });
  await delivered;
  await expect.poll(() => lines.filter((l) => l.level === 'info').length).toBe(1);
  expect(calls).toBe(3);
  expect(lines.filter((l) => l.level === 'warn').map((l) => l.obj['attempt'])).toEqual([1, 2]);
});

test('after the last attempt the failure is logged as an error naming the message, recipient and relay', async () => {
  const { lines, logger } = memoryLogger();
  let calls = 0;
  const forwarder = createForwarder({
    relayUrl: 'smtp://relay.test:25',
    logger,
    attempts: 3,
    baseDelayMs: 1,
    maxDelayMs: 2,
    send: async () => {
      calls++;
      throw new Error('connection refused');
    },
  });
  forwarder.enqueue(job);
  await expect.poll(() => lines.some((l) => l.level === 'error')).toBe(true);
  expect(calls).toBe(3);
  const error = lines.find((l) => l.level === 'error')!;
  expect(error.msg).toContain('msg_1');
  expect(error.msg).toContain('me@example.com');
  expect(error.msg).toContain('smtp://relay.test:25');
  expect(error.msg).toContain('connection refused');
  await forwarder.close();
});

test('enqueue returns before the relay is contacted, and close cancels pending retries', async () => {
  const { logger } = memoryLogger();
  let calls = 0;
  const forwarder = createForwarder({
    relayUrl: 'smtp://relay.test:25',
    logger,
    baseDelayMs: 60_000,
    send: async () => {
      calls++;
      throw new Error('down');
    },
  });
  forwarder.enqueue(job);
  expect(calls).toBe(0);
  await expect.poll(() => calls).toBe(1);
  await forwarder.close();
  expect(calls).toBe(1);
});
