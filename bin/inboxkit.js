#!/usr/bin/env node
// The inboxkit command. The CLI is compiled to dist/ by `npm run build` (run by
// `npm publish` through prepublishOnly; in a checkout, run it yourself).
// Plain JavaScript that any Node.js with ES modules parses: the version check
// below must be able to speak before anything newer loads.
import { existsSync } from 'node:fs';

const check = new URL('../dist/runtime/node-check.js', import.meta.url);
const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry) || !existsSync(check)) {
  console.error('inboxkit: dist/ is missing. Run `npm run build` in the inboxkit checkout first.');
  process.exit(1);
}
try {
  await import(check.href);
} catch (error) {
  // The check's message is one line that says what to install; print just that.
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
await import(entry.href);
