/**
 * The test corpora (hostile HTML and malformed MIME from other projects' test
 * suites), fetched from their upstream repositories at pinned commits rather
 * than kept in this repository:
 *
 *   npm run corpora                 fetch what is missing, check every file's SHA-256
 *   node scripts/corpora.ts --if-missing   the same, but offline it says so in one line and succeeds (pretest)
 *   node scripts/corpora.ts --from URL     from a mirror laid out as raw.githubusercontent.com is
 *
 * What is fetched, from where, and under which licence: scripts/corpora/manifest.json
 * and scripts/corpora/README.md. The files land in .corpora/<name>/ (ignored by git);
 * a folder `../shared/corpora/<name>` beside the checkout, when it exists (this
 * project's CI lays one out), is checked and used instead. The tests find the
 * corpora through tests/support/corpora.ts and are skipped, saying how to get
 * them, when neither is there.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface CorpusFile {
  from: string;
  to: string;
  sha256: string;
}
interface Source {
  repository: string;
  commit: string;
  licence: string;
  files: CorpusFile[];
}
interface Corpus {
  name: string;
  sources: Source[];
}

const root = join(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(import.meta.dirname, 'corpora/manifest.json'), 'utf8')) as { corpora: Corpus[] };
const ifMissing = process.argv.includes('--if-missing');
/** `--from URL` fetches from a mirror laid out as raw.githubusercontent.com is (OWNER/NAME/COMMIT/PATH). */
const fromIndex = process.argv.indexOf('--from');
const base = fromIndex > 0 ? (process.argv[fromIndex + 1] ?? '').replace(/\/$/, '') : 'https://raw.githubusercontent.com';
/** Every fetch is bounded: a corpus file is small, a hung connection is not waited on forever. */
const FETCH_TIMEOUT_MS = 20_000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Files of a corpus whose content differs from the manifest (or is missing), by their path in the corpus. */
function mismatches(dir: string, corpus: Corpus, options: { licencesOptional: boolean }): string[] {
  const wrong: string[] = [];
  for (const file of corpus.sources.flatMap((source) => source.files)) {
    const path = join(dir, file.to);
    if (!existsSync(path)) {
      // The shared copy of CI keeps the licences in its SOURCE.md rather than as files.
      if (!(options.licencesOptional && file.to.startsWith('LICENSE'))) wrong.push(`${file.to} (missing)`);
      continue;
    }
    if (sha256(readFileSync(path)) !== file.sha256) wrong.push(`${file.to} (SHA-256 differs)`);
  }
  return wrong;
}

async function download(source: Source, file: CorpusFile): Promise<Uint8Array> {
  const url = `${base}/${source.repository}/${source.commit}/${file.from}`;
  const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`${url} answered HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.byteLength > MAX_FILE_BYTES) throw new Error(`${url} is larger than ${MAX_FILE_BYTES} bytes`);
  const actual = sha256(bytes);
  if (actual !== file.sha256) {
    throw new Error(`${url} has SHA-256 ${actual}, the manifest pins ${file.sha256}: not stored. Has the upstream commit been rewritten? Check scripts/corpora/manifest.json.`);
  }
  return bytes;
}

/** Fetches a corpus into a temporary folder, then moves it into place, so a half-fetched corpus is never used. */
async function fetchCorpus(corpus: Corpus, target: string): Promise<void> {
  const partial = `${target}.partial`;
  rmSync(partial, { recursive: true, force: true });
  try {
    for (const source of corpus.sources) {
      for (const file of source.files) {
        const bytes = await download(source, file);
        const path = join(partial, file.to);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, bytes);
      }
    }
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    throw error;
  }
  rmSync(target, { recursive: true, force: true });
  renameSync(partial, target);
}

async function main(): Promise<number> {
  let failed = 0;
  for (const corpus of manifest.corpora) {
    const shared = join(root, '..', 'shared', 'corpora', corpus.name);
    if (existsSync(shared)) {
      const wrong = mismatches(shared, corpus, { licencesOptional: true });
      if (wrong.length === 0) continue;
      console.error(`corpora: ${shared} differs from scripts/corpora/manifest.json: ${wrong.slice(0, 5).join(', ')}${wrong.length > 5 ? ', …' : ''}`);
      failed++;
      continue;
    }
    const local = join(root, '.corpora', corpus.name);
    if (existsSync(local) && mismatches(local, corpus, { licencesOptional: false }).length === 0) continue;
    const files = corpus.sources.reduce((sum, source) => sum + source.files.length, 0);
    console.log(`corpora: fetching ${corpus.name} (${files} files from ${corpus.sources.map((s) => `${s.repository}@${s.commit.slice(0, 7)}`).join(', ')}) …`);
    try {
      await fetchCorpus(corpus, local);
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
      if (ifMissing) {
        console.log(`corpora: ${corpus.name} could not be fetched (${cause}); its tests will be skipped. Run \`npm run corpora\` with network access to run them.`);
      } else {
        console.error(`corpora: ${corpus.name} could not be fetched: ${(error as Error).message}${cause !== (error as Error).message ? ` (${cause})` : ''}`);
        failed++;
      }
    }
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = await main();
