/**
 * Loaded with `node --import` into a spawned `inboxkit serve`: records the URL
 * of every module the process resolves (imports and requires alike) and writes
 * them, one a line, to the file named by INBOXKIT_TEST_MODULE_TRACE when the
 * process exits.
 */
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const out = process.env.INBOXKIT_TEST_MODULE_TRACE;
if (!out) throw new Error('module-trace.ts needs INBOXKIT_TEST_MODULE_TRACE: the file to write the loaded modules to.');
const urls = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    urls.add(resolved.url);
    return resolved;
  },
});
process.on('exit', () => writeFileSync(out, [...urls].join('\n')));
