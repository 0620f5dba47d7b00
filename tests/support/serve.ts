/**
 * Spawning `inboxkit serve` from the sources for tests: resolves once the
 * command prints its machine-readable `INBOXKIT_READY {json}` line.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The CLI's entry in the sources (run with the Node that runs the tests). */
export const CLI = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** What `inboxkit serve` prints once it listens. */
export interface Ready {
  url: string;
  apiUrl: string;
  smtpHost: string;
  smtpPort: number;
}

/** A spawned `inboxkit serve`. */
export interface Served {
  child: ChildProcessWithoutNullStreams;
  ready: Ready;
  /** Everything it printed on stdout so far. */
  output: () => string;
  /** Everything it printed on stderr so far. */
  errors: () => string;
}

/**
 * Starts `inboxkit serve --port 0 --smtp-port 0 …args` and resolves once it
 * listens; rejects with its stderr when it exits first. `onSpawn` sees the child
 * at once, so a test can kill it in its cleanup whatever happens.
 * `maxDescriptors` starts it under that descriptor limit (the shell's
 * `ulimit -n`, then `exec`: the child is the service's own process).
 */
export async function spawnServe(
  args: string[],
  options: { env?: Record<string, string>; onSpawn?: (child: ChildProcessWithoutNullStreams) => void; maxDescriptors?: number } = {},
): Promise<Served> {
  const command = [process.execPath, CLI, 'serve', '--port', '0', '--smtp-port', '0', ...args];
  const env = { ...process.env, ...options.env };
  const child =
    options.maxDescriptors === undefined
      ? spawn(command[0]!, command.slice(1), { env })
      : spawn('bash', ['-c', `ulimit -n ${options.maxDescriptors} && exec "$@"`, 'serve', ...command], { env });
  options.onSpawn?.(child);
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n').find((l) => l.startsWith('INBOXKIT_READY '));
      if (line) resolve(JSON.parse(line.slice('INBOXKIT_READY '.length)) as Ready);
    });
    child.once('exit', (code) => reject(new Error(`inboxkit serve exited with ${code}: ${err}`)));
  });
  return { child, ready, output: () => out, errors: () => err };
}
