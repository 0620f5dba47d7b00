#!/usr/bin/env node
// The inboxkit command. The CLI is compiled to dist/ by `npm run build`
// (run automatically by `npm install` / `npm ci` through the prepare script).
import { existsSync } from 'node:fs';
const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('inboxkit: dist/ is missing. Run `npm run build` in the inboxkit checkout first.');
  process.exit(1);
}
await import(entry.href);
