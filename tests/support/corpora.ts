/**
 * Where the test corpora are: `../shared/corpora/<name>` beside the checkout
 * when it exists (this project's CI lays it out), otherwise `.corpora/<name>`
 * as `npm run corpora` fetched it (scripts/corpora.ts). A spec that needs a
 * corpus asks {@link corpusDir} and skips with {@link corpusSkip} when it is
 * not there, so that a clone without network still tests green, saying why.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The corpora scripts/corpora/manifest.json names. */
export type CorpusName = 'mime-enmime' | 'xss';

const root = join(import.meta.dirname, '..', '..');

/** The folder of a corpus, or null when it has not been fetched. */
export function corpusDir(name: CorpusName): string | null {
  const shared = join(root, '..', 'shared', 'corpora', name);
  if (existsSync(shared)) return shared;
  const local = join(root, '.corpora', name);
  return existsSync(local) ? local : null;
}

/** Why a test that needs a corpus is skipped (shown by the reporter). */
export function corpusSkip(name: CorpusName): string {
  return `the ${name} corpus is not here: run \`npm run corpora\` with network access (it fetches the corpora at pinned commits into .corpora/)`;
}
