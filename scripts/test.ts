/**
 * `npm test`: typecheck, lint, the suite (with the example specs, run as
 * `npm run examples` in a fresh clone: tests/integration/fresh-clone) — with a throwaway
 * PostgreSQL cluster around the suite when the machine has PostgreSQL's
 * server binaries (`initdb`) and none was given, so that the PostgreSQL
 * variants run wherever they can. When one is given (INBOXKIT_TEST_POSTGRES_URL,
 * as .ci/run sets it) it is used and no second cluster is started; when the
 * machine has no PostgreSQL, one line says the variants are skipped and why.
 *
 *   node scripts/test.ts            the whole suite (npm test)
 *   node scripts/test.ts --quick    without the @heavy tests, PostgreSQL and the examples (npm run test:quick)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const quick = process.argv.includes('--quick');
const extra = process.argv.slice(2).filter((arg) => arg !== '--quick');
const postgresScript = join(root, 'tests/support/postgres.sh');
/** A state file of its own, so that a cluster of .ci/run or of a developer is never touched. */
const pgState = '.tmp/postgres-npm-test.env';

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const result = spawnSync(command, args, { cwd: root, env, stdio: 'inherit' });
  return result.status ?? 1;
}

function hasInitdb(): boolean {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return false;
  return readdirSync(base).some((version) => existsSync(join(base, version, 'bin', 'initdb')));
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });
}

/** Starts a cluster on the first free port from 54330, or returns why not. */
async function startPostgres(): Promise<{ url: string } | { skip: string }> {
  if (!hasInitdb()) {
    return { skip: 'no PostgreSQL server on this machine (no initdb under /usr/lib/postgresql): the PostgreSQL variants are skipped; install it (Debian: apt-get install postgresql) to run them' };
  }
  for (let port = 54330; port < 54400; port++) {
    if (!(await portFree(port))) continue;
    const result = spawnSync('bash', [postgresScript, 'start', String(port)], { cwd: root, env: { ...process.env, INBOXKIT_PG_STATE: pgState }, encoding: 'utf8' });
    if (result.status === 0) return { url: result.stdout.trim().split('\n').at(-1) as string };
    return { skip: `the throwaway PostgreSQL cluster did not start (${(result.stderr || '').trim().split('\n').at(-1)}): the PostgreSQL variants are skipped` };
  }
  return { skip: 'no free port from 54330 to 54399 for a throwaway PostgreSQL cluster: the PostgreSQL variants are skipped' };
}

function stopPostgres(): void {
  spawnSync('bash', [postgresScript, 'stop'], { cwd: root, env: { ...process.env, INBOXKIT_PG_STATE: pgState }, stdio: 'ignore' });
}

async function main(): Promise<number> {
  const env = { ...process.env };
  let started = false;
  if (!quick && !env.INBOXKIT_TEST_POSTGRES_URL) {
    stopPostgres(); // one left over by an interrupted run
    const postgres = await startPostgres();
    if ('url' in postgres) {
      env.INBOXKIT_TEST_POSTGRES_URL = postgres.url;
      started = true;
      console.log(`PostgreSQL: a throwaway cluster at ${postgres.url} for the PostgreSQL variants (stopped at the end).`);
    } else {
      console.log(`PostgreSQL: ${postgres.skip}.`);
    }
  }
  const stop = () => started && stopPostgres();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => (stop(), process.exit(130)));
  try {
    // The quick loop: no type-check or lint (the editor has them), no PostgreSQL project,
    // no @heavy test (nested Playwright runs, spawned CLIs, TypeDoc, load, crashes, corpora).
    if (quick) return run('npx', ['playwright', 'test', '--project', 'unit', '--project', 'integration', '--project', 'browser', '--grep-invert', '@heavy', ...extra], env);
    for (const [command, args] of [
      ['npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']],
      ['npx', ['eslint', '.']],
      // The example specs run inside it, from a fresh clone as the README's first command does (tests/integration/fresh-clone).
      ['npx', ['playwright', 'test', ...extra]],
    ] as const) {
      const status = run(command, [...args], env);
      if (status !== 0) return status;
    }
    return 0;
  } finally {
    stop();
  }
}

process.exitCode = await main();
