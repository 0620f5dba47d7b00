/**
 * `npm run build`: the TypeScript build into dist/, the SQL migrations beside
 * it, the web viewer (scripts/build-viewer.ts), the bundled third-party code
 * in vendor/ (scripts/build-vendor.ts), then a stamp (dist/.build-stamp) that
 * `npm pack` checks (scripts/check-build.ts) instead of building again inside
 * the checkout.
 *
 * @packageDocumentation
 */
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildViewer } from './build-viewer.ts';
import { buildVendor } from './build-vendor.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

// From an empty dist/: a file renamed or removed in src/ must not live on in the package.
rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
rmSync(join(ROOT, 'dist/server/storage/migrations'), { recursive: true, force: true });
cpSync(join(ROOT, 'src/server/storage/migrations'), join(ROOT, 'dist/server/storage/migrations'), { recursive: true });
await buildViewer();
await buildVendor();
writeFileSync(join(ROOT, 'dist/.build-stamp'), `${new Date().toISOString()}\n`);
