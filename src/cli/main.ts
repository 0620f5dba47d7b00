/**
 * Entry point of the `inboxkit` command (bin/inboxkit.js imports the built copy).
 *
 * @packageDocumentation
 */
import { main } from './run.ts';

const code = await main(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exitCode = code;
