/**
 * Child process that runs MailDev 3 for the benchmark (in-memory store, its
 * .eml files in a private temporary folder), the way `maildev` runs it.
 * Same IPC protocol as ./inboxkit.ts.
 *
 * @packageDocumentation
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MailDev } from 'maildev';

/** The `ready` message of the host. */
export interface MaildevHostReady {
  type: 'ready';
  webUrl: string;
  smtpPort: number;
}

const mailDirectory = mkdtempSync(join(tmpdir(), 'inboxkit-bench-maildev-'));
const maildev = new MailDev({ smtp: 0, ip: '127.0.0.1', web: 0, webIp: '127.0.0.1', mailDirectory, silent: true });
// MailDev prints its URLs with console.info; the benchmark's output is its table.
console.info = () => {};
const servers = await maildev.start();
const smtpPort = servers.smtp.getPort();
const webPort = servers.api?.getPort();
if (!webPort) throw new Error('bench: MailDev started without its web API');

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await maildev.stop();
  rmSync(mailDirectory, { recursive: true, force: true });
  process.exit(0);
}
process.on('message', (message: { type: string; gc?: boolean }) => {
  if (message.type === 'stop') void stop();
  if (message.type === 'stats') {
    if (message.gc) (globalThis as { gc?: () => void }).gc?.();
    const usage = process.memoryUsage();
    const cpu = process.cpuUsage();
    process.send?.({ type: 'stats', rss: usage.rss, heapUsed: usage.heapUsed, cpuMs: (cpu.user + cpu.system) / 1000 });
  }
});
process.on('disconnect', () => void stop());
process.send?.({ type: 'ready', webUrl: `http://127.0.0.1:${webPort}`, smtpPort } satisfies MaildevHostReady);
