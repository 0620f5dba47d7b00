// @ts-check
/**
 * The import rules of src/, stated once: a `DEPS.list` beside each folder
 * names what the files below it may import (besides their own folder and its
 * subfolders); the nearest `DEPS.list` above a file is the one that applies.
 * Lint (`eslint.config.js`, the `inboxkit/deps` rule) and the architecture
 * test (`tests/unit/architecture.spec.ts`) both read the rules through this
 * module, so there is one statement of each rule.
 *
 * A line of a `DEPS.list` is one of:
 * - `../wire/` — a folder, relative to the list's folder: any file below it;
 * - `../client/index.ts` — one file;
 * - `cheerio`, `@playwright/test` — a package; `hono/*` — its subpaths (`hono/body-limit`);
 * - `node:*` — every Node.js built-in (`node:net`: that one);
 * - `!./wait/` — a subfolder of its own that the folder's other files may
 *   reach only through the files listed for it (`./wait/index.ts`);
 * - `!./start.ts <- ./index.ts` — a file of its own that only the files
 *   after `<-` may import (a composition root);
 * - `# …` — a comment; blank lines are ignored.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** @typedef {{ folder: string; list: string; folders: string[]; files: string[]; packages: string[]; closed: Array<{ target: string; from: string[] }> }} Deps */

/**
 * Parses the text of a `DEPS.list` at `list` (an absolute path).
 * @param {string} list
 * @param {string} text
 * @returns {Deps}
 */
export function parseDeps(list, text) {
  const folder = path.dirname(list);
  /** @type {Deps} */
  const deps = { folder, list, folders: [], files: [], packages: [], closed: [] };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    if (line.startsWith('!')) {
      const [target = '', from = ''] = line.slice(1).split('<-').map((part) => part.trim());
      deps.closed.push({ target: path.resolve(folder, target) + (target.endsWith('/') ? path.sep : ''), from: from.split(/\s+/).filter(Boolean).map((f) => path.resolve(folder, f)) });
    } else if (line.startsWith('.')) {
      const target = path.resolve(folder, line);
      if (line.endsWith('/')) deps.folders.push(target + path.sep);
      else deps.files.push(target);
    } else {
      deps.packages.push(line);
    }
  }
  return deps;
}

/**
 * The rules that apply to `file`: the nearest `DEPS.list` in its folder or
 * above it, up to `src/`; `undefined` outside `src/` or where none is found.
 * @param {string} file an absolute path
 * @param {string} src the absolute path of src/
 * @param {(list: string) => string | undefined} [read] reads a list (default: from disk)
 * @returns {Deps | undefined}
 */
export function depsFor(file, src, read = (list) => (existsSync(list) ? readFileSync(list, 'utf8') : undefined)) {
  if (!file.startsWith(src + path.sep)) return undefined;
  for (let dir = path.dirname(file); dir.startsWith(src); dir = path.dirname(dir)) {
    const list = path.join(dir, 'DEPS.list');
    const text = read(list);
    if (text !== undefined) return parseDeps(list, text);
    if (dir === src) break;
  }
  return undefined;
}

/**
 * Why `file` may not import `specifier` under `deps`, or `null` when it may.
 * @param {Deps} deps
 * @param {string} file an absolute path
 * @param {string} specifier as written in the import
 * @returns {string | null}
 */
export function refusal(deps, file, specifier) {
  if (specifier.startsWith('.')) {
    const target = path.resolve(path.dirname(file), specifier);
    const closed = deps.closed.find((c) => (c.target.endsWith(path.sep) ? target.startsWith(c.target) && !file.startsWith(c.target) : target === c.target || target === c.target.replace(/\.ts$/, '')));
    if (closed !== undefined && !closed.from.includes(file)) {
      if (deps.files.includes(target)) return null;
      const through = deps.files.filter((f) => f.startsWith(closed.target)).map((f) => path.relative(deps.folder, f));
      const only = closed.from.map((f) => path.relative(deps.folder, f));
      return `${specifier} is not allowed here: ${path.relative(process.cwd(), deps.list)} ${through.length > 0 ? `lets the rest of its folder reach ${path.relative(deps.folder, closed.target)}/ only through ${through.join(', ')}` : `lets only ${only.join(', ') || 'no file'} import ${path.relative(deps.folder, closed.target)}`}.`;
    }
    if (target.startsWith(deps.folder + path.sep)) return null;
    if (deps.folders.some((f) => target.startsWith(f))) return null;
    if (deps.files.includes(target)) return null;
  } else {
    const allowed = deps.packages.some((p) => {
      if (p === 'node:*') return specifier.startsWith('node:');
      if (p.endsWith('/*')) return specifier.startsWith(p.slice(0, -1));
      return specifier === p;
    });
    if (allowed) return null;
  }
  const where = path.relative(process.cwd(), deps.list);
  return `${specifier} is not allowed here: ${where} names what this folder may import (its own files and subfolders, ${[...deps.folders.map((f) => path.relative(deps.folder, f) + '/'), ...deps.files.map((f) => path.relative(deps.folder, f)), ...deps.packages].join(', ') || 'nothing else'}). Import something it allows, or change the rule there and in docs/architecture.md.`;
}

/**
 * An ESLint rule that refuses what the nearest `DEPS.list` does not allow:
 * static and dynamic imports, type-only imports and re-exports alike.
 * @param {string} src the absolute path of src/
 */
export function depsRule(src) {
  /** @type {Map<string, Deps | undefined>} */
  const cache = new Map();
  return {
    meta: { type: 'problem', docs: { description: 'Imports only what the folder\'s DEPS.list allows' }, schema: [] },
    /** @param {any} context */
    create(context) {
      const file = context.filename;
      const dir = path.dirname(file);
      if (!cache.has(dir)) cache.set(dir, depsFor(file, src));
      const deps = cache.get(dir);
      if (deps === undefined) return {};
      /** @param {any} source */
      const check = (source) => {
        if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return;
        const why = refusal(deps, file, source.value);
        if (why) context.report({ node: source, message: why });
      };
      return {
        /** @param {any} node */ ImportDeclaration: (node) => check(node.source),
        /** @param {any} node */ ExportNamedDeclaration: (node) => check(node.source),
        /** @param {any} node */ ExportAllDeclaration: (node) => check(node.source),
        /** @param {any} node */ ImportExpression: (node) => check(node.source),
      };
    },
  };
}
