/**
 * Makes sure a Chromium is there for the browser tests and the examples:
 * Debian's /usr/bin/chromium when installed (as on CI and offline machines),
 * otherwise Playwright's own build, installed once by `playwright install`
 * (which does nothing when it is already there).
 */
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const system = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
if (!system) {
  console.log('No system Chromium found; installing Playwright\'s own (npx playwright install chromium) …');
  const result = spawnSync('npx', ['playwright', 'install', 'chromium'], { stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    console.error(
      'Could not install a browser. Install Chromium yourself (Debian/Ubuntu: `sudo apt-get install chromium`) ' +
        'or run `npx playwright install chromium` with network access, then try again.',
    );
    process.exit(result.status ?? 1);
  }
}
