/**
 * SpamAssassin's spamd, over its own protocol (SPAMC/1.5): the `REPORT`
 * command answers the score, the threshold and the report whose table lists
 * every matched rule with its points and description — what Mailpit shows.
 *
 * @packageDocumentation
 */
import { connect } from 'node:net';
import { SpamCheckError } from './errors.ts';
import type { RawScan, ScannerTarget } from './errors.ts';

/** Most bytes of an answer read from spamd: a report is a few kilobytes. */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** Sends a message to spamd and resolves with its whole answer (bounded in size and time). */
function exchange(target: ScannerTarget, raw: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let settled = false;
    const socket = connect({ host: target.host, port: target.port });
    const finish = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, length));
    };
    const timer = setTimeout(
      () => finish(new SpamCheckError('timeout', `spamd at ${target.host}:${target.port} did not answer within ${target.timeoutMs} ms`)),
      target.timeoutMs,
    );
    socket.on('connect', () => {
      socket.write(`REPORT SPAMC/1.5\r\nContent-length: ${raw.byteLength}\r\nUser: inboxkit\r\n\r\n`);
      socket.end(raw);
    });
    socket.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length > MAX_ANSWER_BYTES) return finish(new SpamCheckError('protocol', `spamd at ${target.host}:${target.port} answered more than ${MAX_ANSWER_BYTES} bytes`));
      chunks.push(chunk);
    });
    socket.on('end', () => finish(null));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      finish(new SpamCheckError('unreachable', `cannot reach spamd at ${target.host}:${target.port} (${error.code ?? error.message})`, { cause: error })),
    );
  });
}

/** The rules of a spamd report's table (`pts rule name description`, descriptions wrapped onto indented lines). */
export function parseReportTable(report: string): RawScan['rules'] {
  const lines = report.split(/\r?\n/);
  const start = lines.findIndex((l) => /^-{3,}\s+-{3,}/.test(l));
  if (start < 0) return [];
  const rules: RawScan['rules'] = [];
  for (const line of lines.slice(start + 1)) {
    const match = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Za-z0-9_]+)\s*(.*)$/.exec(line);
    const last = rules.at(-1);
    if (match) rules.push({ name: match[2] ?? '', score: Number(match[1]), description: (match[3] ?? '').trim() });
    else if (last && /^\s+\S/.test(line)) last.description = `${last.description} ${line.trim()}`;
    else if (line.trim() === '') break;
  }
  return rules;
}

/**
 * Scores a message with spamd's `REPORT` command.
 *
 * @throws SpamCheckError when spamd cannot be reached, is too slow, or answers with an error.
 */
export async function spamdCheck(target: ScannerTarget, raw: Uint8Array): Promise<RawScan> {
  const answer = (await exchange(target, raw)).toString('utf8');
  const [head = '', ...rest] = answer.split(/\r?\n\r?\n/);
  const status = /^SPAMD\/[\d.]+\s+(\d+)\s+(.*)$/m.exec(head);
  if (!status) throw new SpamCheckError('protocol', `spamd at ${target.host}:${target.port} answered something that is not the spamd protocol: ${JSON.stringify(answer.slice(0, 80))}`);
  if (status[1] !== '0') throw new SpamCheckError('protocol', `spamd at ${target.host}:${target.port} refused the message: ${status[1]} ${status[2]}`);
  const spam = /^Spam:\s*\w+\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/im.exec(head);
  if (!spam) throw new SpamCheckError('protocol', `spamd at ${target.host}:${target.port} answered without a Spam: header`);
  return { score: Number(spam[1]), threshold: Number(spam[2]), rules: parseReportTable(rest.join('\n\n')) };
}
