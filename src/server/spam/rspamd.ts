/**
 * Rspamd, over its HTTP API (`POST /checkv2` of the normal worker): JSON with
 * the score, the actions' thresholds and every symbol with its score and
 * description.
 *
 * @packageDocumentation
 */
import { request } from 'node:http';
import { SpamCheckError } from './errors.ts';
import type { RawScan, ScannerTarget } from './errors.ts';

const MAX_ANSWER_BYTES = 1024 * 1024;

interface CheckV2 {
  score?: number;
  required_score?: number;
  thresholds?: Record<string, number>;
  symbols?: Record<string, { name?: string; score?: number; description?: string }>;
}

function post(target: ScannerTarget, raw: Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const where = `Rspamd at ${target.host}:${target.port}`;
    const req = request({ host: target.host, port: target.port, method: 'POST', path: '/checkv2', headers: { 'content-length': raw.byteLength }, timeout: target.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      let length = 0;
      res.on('data', (chunk: Buffer) => {
        length += chunk.length;
        if (length > MAX_ANSWER_BYTES) req.destroy(new SpamCheckError('protocol', `${where} answered more than ${MAX_ANSWER_BYTES} bytes`));
        else chunks.push(chunk);
      });
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new SpamCheckError('protocol', `${where} answered HTTP ${res.statusCode}`))));
    });
    const timer = setTimeout(() => req.destroy(new SpamCheckError('timeout', `${where} did not answer within ${target.timeoutMs} ms`)), target.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(error instanceof SpamCheckError ? error : new SpamCheckError('unreachable', `cannot reach ${where} (${error.code ?? error.message})`, { cause: error }));
    });
    req.end(raw);
  });
}

/**
 * Scores a message with Rspamd's `/checkv2`. The threshold is the score of the
 * `add header` action (what marks mail as spam), else `required_score`.
 *
 * @throws SpamCheckError when Rspamd cannot be reached, is too slow, or answers something unreadable.
 */
export async function rspamdCheck(target: ScannerTarget, raw: Uint8Array): Promise<RawScan> {
  const text = await post(target, raw);
  let body: CheckV2;
  try {
    body = JSON.parse(text) as CheckV2;
  } catch (error) {
    throw new SpamCheckError('protocol', `Rspamd at ${target.host}:${target.port} answered something that is not JSON`, { cause: error });
  }
  const threshold = body.thresholds?.['add header'] ?? body.required_score ?? 15;
  const rules = Object.entries(body.symbols ?? {}).map(([name, s]) => ({ name: s.name ?? name, score: Number(s.score ?? 0), description: s.description ?? '' }));
  return { score: Number(body.score ?? 0), threshold, rules };
}
