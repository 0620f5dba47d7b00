/**
 * A fresh clone of the repository, as a new user has it after `git clone` and
 * `npm ci`: the files git tracks (plus new files not yet committed, never an
 * ignored one: no dist/, vendor/, .corpora/ or test results) copied into an
 * empty folder with nothing beside it, and the installed packages.
 *
 * The packages are the checkout's own node_modules, hard-linked (a second of
 * work instead of a minute of `npm ci` and the 100 MB Node.js binary package).
 * That is what `npm ci` would make, as long as two things hold, and
 * {@link checkInstallIsFaithful} checks both: the project runs nothing at
 * install time (no `prepare`, `preinstall`, `install` or `postinstall` of its
 * own, so `npm ci` leaves nothing but packages), and the checkout's
 * node_modules holds exactly the versions package-lock.json pins.
 */
import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository's root folder. */
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** The project's files a clone has: tracked and new (never ignored) files of the working tree, so uncommitted work is tried too. */
export async function cloneFiles(): Promise<string[]> {
  // Not a git checkout (an unpacked tarball), or no git: no clone to make, and the spec says so.
  const listed = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: REPO, maxBuffer: 16 * 1024 * 1024 }).catch(() => null);
  if (listed === null) return [];
  const { stdout } = listed;
  const files = [...new Set(stdout.split('\0').filter(Boolean))];
  const present = await Promise.all(files.map(async (file) => ((await stat(path.join(REPO, file)).catch(() => null))?.isFile() ? file : null)));
  return present.filter((file): file is string => file !== null);
}

/**
 * Why the checkout's node_modules would not be what `npm ci` makes from this
 * clone, or `null` when it is: an install script of the project's own, or a
 * package whose installed version differs from the lockfile's.
 */
export async function checkInstallIsFaithful(): Promise<string | null> {
  const manifest = JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const installScripts = ['preinstall', 'install', 'postinstall', 'prepare'].filter((name) => manifest.scripts?.[name] !== undefined);
  if (installScripts.length > 0) return `package.json has install-time scripts (${installScripts.join(', ')}): a copy of node_modules no longer stands for \`npm ci\`; run \`npm ci --offline\` in the clone instead`;
  const lock = JSON.parse(await readFile(path.join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  const installed = JSON.parse(await readFile(path.join(REPO, 'node_modules/.package-lock.json'), 'utf8').catch(() => '{"packages":{}}')) as { packages: Record<string, { version?: string }> };
  const differ = Object.entries(lock.packages)
    .filter(([where, entry]) => where.startsWith('node_modules/') && entry.version !== undefined && installed.packages[where] !== undefined && installed.packages[where].version !== entry.version)
    .map(([where, entry]) => `${where.slice('node_modules/'.length)} ${installed.packages[where]?.version} (lockfile: ${entry.version})`);
  if (Object.keys(installed.packages).length === 0) return 'node_modules/.package-lock.json is missing: run `npm ci` in the checkout first';
  return differ.length > 0 ? `the checkout's node_modules differs from package-lock.json (${differ.slice(0, 5).join(', ')}): run \`npm ci\` in the checkout first` : null;
}

/** Makes the clone in `dir` (an empty folder with nothing beside it): the project's files, then node_modules hard-linked. */
export async function makeClone(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const file of await cloneFiles()) await cp(path.join(REPO, file), path.join(dir, file), { preserveTimestamps: true });
  await run('cp', ['-al', path.join(REPO, 'node_modules'), path.join(dir, 'node_modules')], { maxBuffer: 16 * 1024 * 1024 });
}

/** What a command printed and how it ended. */
export interface CommandResult {
  status: number | null;
  output: string;
  timedOut: boolean;
}

/**
 * Runs a shell command line in `cwd` with its own process group, so that on
 * timeout everything it started (the runner, its browsers, its web servers)
 * is ended with it. Output (stdout and stderr together) is kept up to 8 MB.
 */
export function runCommand(command: string, options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn(command, { cwd: options.cwd, env: options.env, shell: true, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => void (output.length < 8 * 1024 * 1024 && (output += chunk.toString('utf8')));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, options.timeoutMs);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output, timedOut });
    });
  });
}
