/**
 * Analyses of untrusted mail run in a worker that a bound can stop: the
 * answer is the analysis's own, and a job past its time or heap bound, or over
 * the runner's workers and queue, is refused naming the bound. A worker that
 * answered is kept for the next job; one a bound stopped is not.
 */
import { test, expect } from '@playwright/test';
import { AnalysisBoundError, AnalysisFailedError, createAnalysisRunner } from '../../../src/checks/analysis-runner.ts';
import { extractLinks } from '../../../src/extract/index.ts';

const source = { html: '<p>Confirm: <a href="https://app.example/confirm?t=1">Confirm email</a>. Your code is <b>482913</b>.</p>', text: null, subject: 'Confirm' };

/** A raw message of about `mb` MiB: one HTML part of many paragraphs. */
function bigMessage(mb: number): Uint8Array {
  const paragraph = '<p>' + 'word '.repeat(40) + '<a href="https://app.example/x">x</a></p>\r\n';
  const body = paragraph.repeat(Math.ceil((mb * 1024 * 1024) / paragraph.length));
  return new TextEncoder().encode(`From: a@acme.example\r\nTo: b@acme.example\r\nSubject: big\r\nContent-Type: text/html\r\n\r\n${body}`);
}

async function boundOf(promise: Promise<unknown>): Promise<{ bound: string; message: string }> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AnalysisBoundError);
  return { bound: (error as AnalysisBoundError).bound, message: (error as Error).message };
}

test('an extraction in a worker answers what the extraction itself answers', async () => {
  const runner = createAnalysisRunner();
  try {
    const { links, otps } = await runner.run({ kind: 'extract', source });
    expect(links.map((l) => l.href)).toEqual(extractLinks(source).map((l) => l.href));
    expect(otps.candidates[0]?.code).toBe('482913');
  } finally {
    await runner.close();
  }
});

test('a job past its time bound is terminated and the answer names the time bound', async () => {
  const runner = createAnalysisRunner({ timeoutMs: 5 });
  try {
    const { bound, message } = await boundOf(runner.run({ kind: 'content', raw: bigMessage(8) }));
    expect(bound).toBe('time');
    expect(message).toContain('took longer than 5 ms, the time bound');
  } finally {
    await runner.close();
  }
});

test('a job over its heap bound is stopped and the answer names the memory bound', async () => {
  test.setTimeout(120_000);
  const runner = createAnalysisRunner({ maxMemoryMb: 16, timeoutMs: 90_000 });
  try {
    const { bound, message } = await boundOf(runner.run({ kind: 'content', raw: bigMessage(24) }));
    expect(bound).toBe('memory');
    expect(message).toContain('16 MiB');
  } finally {
    await runner.close();
  }
});

test('a job over the workers and the queue is refused at once, naming the bound', async () => {
  const runner = createAnalysisRunner({ concurrency: 1, queue: 0, timeoutMs: 60_000 });
  try {
    const first = runner.run({ kind: 'extract', source });
    const { bound, message } = await boundOf(runner.run({ kind: 'extract', source }));
    expect(bound).toBe('busy');
    expect(message).toContain('1 analyses are running and 0 are waiting');
    await first;
  } finally {
    await runner.close();
  }
});

test('an error of the analysis itself comes back with its name and kind', async () => {
  const runner = createAnalysisRunner({ timeoutMs: 60_000 });
  try {
    const error = await runner
      .run({ kind: 'authentication', input: { raw: bigMessage(0.01), dns: { 'x._domainkey.acme.example': 'v=DKIM1; k=rsa' }, session: { mailFrom: '', clientAddress: '127.0.0.1', helo: null }, trustReceived: false } })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(AnalysisFailedError);
    expect((error as Error).name).toBe('TestDnsError');
    expect((error as Error).message).toContain('is a DKIM key record without a p= tag');
  } finally {
    await runner.close();
  }
});

test('a worker that answered runs the next job, so a session of analyses starts one thread, not one per job', async () => {
  const runner = createAnalysisRunner({ concurrency: 1, timeoutMs: 60_000 });
  try {
    for (let i = 0; i < 5; i++) expect((await runner.run({ kind: 'extract', source })).otps.candidates[0]?.code).toBe('482913');
    expect(runner.workersStarted).toBe(1);
  } finally {
    await runner.close();
  }
});

test('a worker stopped by a bound is never reused: each job after it gets a fresh one', async () => {
  test.setTimeout(120_000);
  const timed = createAnalysisRunner({ concurrency: 1, timeoutMs: 5 });
  try {
    for (let i = 0; i < 2; i++) expect((await boundOf(timed.run({ kind: 'content', raw: bigMessage(8) }))).bound).toBe('time');
    expect(timed.workersStarted).toBe(2);
  } finally {
    await timed.close();
  }
  const small = createAnalysisRunner({ concurrency: 1, maxMemoryMb: 16, timeoutMs: 90_000 });
  try {
    for (let i = 0; i < 2; i++) expect((await boundOf(small.run({ kind: 'content', raw: bigMessage(24) }))).bound).toBe('memory');
    expect(small.workersStarted).toBe(2);
  } finally {
    await small.close();
  }
});

test('an idle worker ends after its idle time, and the next job starts another', async () => {
  const runner = createAnalysisRunner({ concurrency: 1, timeoutMs: 60_000, idleMs: 50 });
  try {
    await runner.run({ kind: 'extract', source });
    await new Promise((resolve) => setTimeout(resolve, 500));
    await runner.run({ kind: 'extract', source });
    expect(runner.workersStarted).toBe(2);
  } finally {
    await runner.close();
  }
});
