/**
 * The task a {@link createMailPool} worker runs: {@link prepareMessage} on a
 * copy of the raw message. The raw bytes stay with the caller, so they are not
 * sent back.
 */
import type { NewMessage } from '../storage/contract/types.ts';
import { prepareMessage, type PrepareOptions, type PreparedMessage } from './prepare.ts';

/** What the pool sends a worker. */
export interface PrepareJob {
  raw: Uint8Array;
  options: PrepareOptions;
}

/** What a worker sends back: a prepared message without its raw source. */
export interface PrepareJobResult extends Omit<PreparedMessage, 'message'> {
  message: Omit<NewMessage, 'raw'>;
}

/** Prepares one message in the worker. */
export default async function prepareInWorker(job: PrepareJob): Promise<PrepareJobResult> {
  const { message, sanitizedHtml, fallbackReason } = await prepareMessage(job.raw, job.options);
  const { raw: _raw, ...rest } = message;
  return { message: rest, sanitizedHtml, fallbackReason };
}
