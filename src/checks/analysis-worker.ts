/**
 * The worker thread of {@link createAnalysisRunner}: runs analyses of
 * untrusted mail (sender authentication, link and code extraction, content
 * rules), one at a time, each posted to it as a message, and posts each
 * answer. The runner keeps it for later jobs while it behaves, and terminates
 * it when a job passes its time bound; its heap is bounded by the runner's
 * `resourceLimits`. It keeps nothing between jobs.
 *
 * @packageDocumentation
 */
import { parentPort } from 'node:worker_threads';
import { extractLinks, extractOtps } from '../extract/index.ts';
import { runAuthentication } from './authentication.ts';
import { checkCompatibility } from './compatibility.ts';
import { checkContent } from './content-checks.ts';
import { imagesOf } from './link-check.ts';
import { contentSourceOf, parseOriginal } from './original.ts';
import type { AnalysisJob } from './analysis-runner.ts';

async function run(job: AnalysisJob): Promise<unknown> {
  switch (job.kind) {
    case 'authentication':
      return runAuthentication(job.input);
    case 'extract': {
      const links = extractLinks(job.source);
      const matched = job.links === undefined ? null : extractLinks(job.source, job.links);
      const otps = extractOtps(job.source, job.otp);
      // Non-enumerable on the arrays, so named here: a message between threads keeps only own enumerable fields.
      const bounds = [...links.bounds, ...otps.bounds].map((b) => b.message);
      const images = job.images === true ? imagesOf(typeof job.source === 'string' ? null : (job.source.html ?? null)) : null;
      return { links: [...links], matched: matched && [...matched], otps: { candidates: [...otps], rejected: otps.rejected }, images, bounds: [...new Set(bounds)] };
    }
    case 'content':
      return checkContent(await contentSourceOf({ raw: async () => job.raw }), job.options);
    case 'compatibility': {
      // The original HTML part, or the sanitized HTML of a server that serves no raw sources.
      if (job.raw !== null) return checkCompatibility((await parseOriginal(job.raw)).html, job.clients);
      const report = await checkCompatibility(job.sanitized, job.clients);
      return report.source === 'original' ? { ...report, source: 'sanitized' } : report;
    }
  }
}

const port = parentPort;
port?.on('message', (job: AnalysisJob) => {
  run(job).then(
    (value) => port.postMessage({ ok: true, value }),
    (error: unknown) => port.postMessage({ ok: false, error: { name: (error as Error)?.name ?? 'Error', message: String((error as Error)?.message ?? error), kind: (error as { kind?: unknown })?.kind } }),
  );
});
