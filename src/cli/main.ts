/**
 * Entry point of the `inboxkit` command (bin/inboxkit.js imports the built copy).
 *
 * @packageDocumentation
 */
// First: fails with one line on an unsupported Node.js (run directly, not through bin/).
import '../runtime/node-check.ts';
import * as nodeModule from 'node:module';
import { quietSqliteWarning } from './warnings.ts';

// Node.js 22 calls node:sqlite experimental on every start; see warnings.ts.
quietSqliteWarning(process);

// Node.js keeps the compiled code of inboxkit and its dependencies on disk
// (in os.tmpdir(); NODE_DISABLE_COMPILE_CACHE=1 turns it off, NODE_COMPILE_CACHE
// moves it), so that every start after the first skips most of the compiling.
// It covers only what loads after this call: hence the dynamic import below.
nodeModule.enableCompileCache();
const { main } = await import('./run.ts');

const code = await main(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exitCode = code;
