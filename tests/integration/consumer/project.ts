/**
 * A user's project, made from the packed package: `npm pack` the repository,
 * then install the tarball into a fresh folder the way a user's `npm i -D
 * inboxkit @playwright/test` would, but offline.
 *
 * Offline: a fresh `npm install` needs the registry's package documents to
 * resolve version ranges, which npm's cache does not keep. So the project gets
 * a lockfile instead, as a user's repository has one: the tarball's
 * dependencies (read from the packed package.json), @playwright/test,
 * typescript and @types/node, each at the version and integrity the
 * repository's own lockfile pins, with the dependencies they pull in. `npm ci
 * --offline` then takes every package from npm's cache by its integrity, and
 * fails if the package asks for something the lockfile does not have.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository's root folder. */
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** An environment where `node` and `npm`'s `node` are the Node.js running the tests. */
export function nodeEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(TEST_|PW_|PLAYWRIGHT_|npm_)/i.test(key) || key === 'NODE_OPTIONS' || key === 'FORCE_COLOR' || key.startsWith('INBOXKIT_')) continue;
    env[key] = value;
  }
  return { ...env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`, FORCE_COLOR: '0', NPM_CONFIG_UPDATE_NOTIFIER: 'false', ...extra };
}

/** Runs a command, failing with its output. */
export async function sh(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number }): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(file, args, { cwd: options.cwd, env: options.env ?? nodeEnv(), timeout: options.timeout ?? 180_000, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const e = error as { message: string; stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed in ${options.cwd}: ${e.message}\nstdout:\n${e.stdout ?? ''}\nstderr:\n${e.stderr ?? ''}`, { cause: error });
  }
}

/** What `npm pack` made. */
export interface Packed {
  /** The tarball's absolute path. */
  tarball: string;
  /** The files in it. */
  files: string[];
  /** Its package.json. */
  manifest: { name: string; version: string; dependencies?: Record<string, string>; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }>; scripts?: Record<string, string> };
}

/** Packs the repository into `destination` (its prepack script checks that dist/ is up to date; `npm run build` first). */
export async function pack(destination: string): Promise<Packed> {
  await mkdir(destination, { recursive: true });
  const { stdout } = await sh('npm', ['pack', '--json', '--pack-destination', destination], { cwd: REPO });
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const tarball = path.join(destination, info!.filename);
  await sh('tar', ['-xzf', tarball, '-C', destination, 'package/package.json'], { cwd: destination });
  const manifest = JSON.parse(await readFile(path.join(destination, 'package/package.json'), 'utf8')) as Packed['manifest'];
  return { tarball, files: info!.files.map((f) => f.path), manifest };
}

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

/** Where Node (and npm's tree) finds `name` for the package at `from` (`''` for the root). */
function resolveIn(packages: Record<string, LockEntry>, from: string, name: string): string | null {
  let dir = from;
  for (;;) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (dir === '') return null;
    const at = dir.lastIndexOf('/node_modules/');
    dir = at < 0 ? '' : dir.slice(0, at);
  }
}

/**
 * A lockfile for a project whose devDependencies are the tarball and `extra`
 * (names the repository's lockfile pins), with every package they need.
 */
async function lockfileFor(packed: Packed, tarballSpec: string, projectName: string, extra: string[], withInboxkit = true): Promise<{ devDependencies: Record<string, string>; lock: object }> {
  const repoLock = JSON.parse(await readFile(path.join(REPO, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const repo = repoLock.packages;
  const packages: Record<string, LockEntry> = {};
  const queue: Array<[string, string, boolean]> = []; // [from, name, optional]
  const devDependencies: Record<string, string> = {};
  for (const name of extra) {
    const version = repo[`node_modules/${name}`]?.version;
    if (!version) throw new Error(`the repository's lockfile has no ${name}`);
    devDependencies[name] = version;
    queue.push(['', name, false]);
  }
  if (withInboxkit) for (const name of Object.keys({ ...packed.manifest.dependencies })) queue.push(['', name, false]);
  while (queue.length > 0) {
    const [from, name, optional] = queue.shift()!;
    const at = resolveIn(repo, from, name);
    if (at === null) {
      if (optional) continue;
      throw new Error(`${name} (needed by ${from || 'the project'}) is not in the repository's lockfile`);
    }
    if (packages[at]) continue;
    const { dev: _dev, devOptional: _devOptional, peer: _peer, ...entry } = repo[at]!;
    packages[at] = { ...entry, dev: true };
    for (const dep of Object.keys(entry.dependencies ?? {})) queue.push([at, dep, false]);
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) queue.push([at, dep, true]);
    for (const dep of Object.keys(entry.peerDependencies ?? {})) queue.push([at, dep, true]);
  }
  if (!withInboxkit) {
    return { devDependencies, lock: { name: projectName, lockfileVersion: 3, requires: true, packages: { '': { name: projectName, devDependencies }, ...packages } } };
  }
  const integrity = `sha512-${createHash('sha512').update(await readFile(packed.tarball)).digest('base64')}`;
  devDependencies[packed.manifest.name] = tarballSpec;
  packages[`node_modules/${packed.manifest.name}`] = {
    version: packed.manifest.version,
    resolved: tarballSpec,
    integrity,
    dev: true,
    ...(packed.manifest.dependencies ? { dependencies: packed.manifest.dependencies } : {}),
    ...(packed.manifest.peerDependencies ? { peerDependencies: packed.manifest.peerDependencies } : {}),
    // Without it npm takes every peer as required: optional peers (the MCP SDK, mailauth, axe-core) stay out of the install, as npm leaves them out of a user's.
    ...(packed.manifest.peerDependenciesMeta ? { peerDependenciesMeta: packed.manifest.peerDependenciesMeta } : {}),
    bin: { inboxkit: 'bin/inboxkit.js' },
  };
  return {
    devDependencies,
    lock: { name: projectName, lockfileVersion: 3, requires: true, packages: { '': { name: projectName, devDependencies }, ...packages } },
  };
}

/** Options of {@link createProject}. */
export interface ProjectOptions {
  /** `module` (an ESM project, `"type": "module"`) or `commonjs`. */
  type: 'module' | 'commonjs';
  /** The project's files, path → content. */
  files: Record<string, string>;
  /** Scripts of its package.json. */
  scripts?: Record<string, string>;
  /** Packages besides inboxkit, at the versions the repository's lockfile pins (default: @playwright/test, typescript, @types/node). */
  extra?: string[];
  /** Leave inboxkit out (a project to measure against). */
  withoutInboxkit?: boolean;
  /**
   * A project already installed from the same packages: its node_modules is
   * copied instead of running `npm ci` again (the install does not depend on
   * the project's own `type`).
   */
  sameInstallAs?: string;
}

/**
 * Makes a user's project in `dir` (next to the tarball): its package.json,
 * lockfile and files, then installs with `npm ci --offline`.
 */
export async function createProject(packed: Packed, dir: string, options: ProjectOptions): Promise<void> {
  await mkdir(dir, { recursive: true });
  const name = `consumer-${options.type}`;
  const spec = `file:${path.relative(dir, packed.tarball).split(path.sep).join('/')}`;
  const { devDependencies, lock } = await lockfileFor(packed, spec, name, options.extra ?? ['@playwright/test', 'typescript', '@types/node'], !options.withoutInboxkit);
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify({ name, private: true, type: options.type, scripts: options.scripts ?? {}, devDependencies }, null, 2)}\n`);
  await writeFile(path.join(dir, 'package-lock.json'), `${JSON.stringify(lock, null, 2)}\n`);
  for (const [file, content] of Object.entries(options.files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
  }
  if (options.sameInstallAs) {
    await cp(path.join(options.sameInstallAs, 'node_modules'), path.join(dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    return;
  }
  await sh('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: dir });
}
