/**
 * The node's pools and their bounds, made once per service from its
 * configuration and closed with it: the check shares (spam, authentication)
 * and the one analysis runner that the authentication check and the mounted
 * MCP endpoint's extraction work in. Routes and mounts take them from the
 * context; none makes its own.
 *
 * @packageDocumentation
 */
import { createFairShare } from '../auth/fair-share.ts';
import type { FairShare } from '../auth/fair-share.ts';
import { MAX_SCANS_IN_FLIGHT } from '../spam/scanner.ts';
import { createAnalysisRunner } from '../../checks/analysis-runner.ts';
import type { AnalysisRunner } from '../../checks/analysis-runner.ts';

/** Longest an authentication check may take, waiting for a worker included. */
export const AUTHENTICATION_TIMEOUT_MS = 10_000;

/** Most authentication checks one node runs at once, and one caller's share of them; more are refused at once, never queued. */
const AUTHENTICATION_CHECKS = { name: 'authentication checks', total: 8, perCaller: 4 };

/** Most spam checks one node has sent or waiting (its scanner queue's bound), and one caller's share of them. */
const SPAM_CHECKS = { name: 'spam checks', total: MAX_SCANS_IN_FLIGHT, perCaller: MAX_SCANS_IN_FLIGHT / 2 };

/** The node's pools. */
export interface NodePools {
  /** Each check's slots, with a share per caller (`callerOf`). */
  checks: { spam: FairShare; authentication: FairShare };
  /** The node's one analysis runner: the authentication check and the MCP endpoint's extraction run in it (time and heap bounds per job, 2 workers, 32 waiting). */
  analysis: AnalysisRunner;
  /** Ends the pools' workers; a job still running is stopped. */
  close(): Promise<void>;
}

/** Jobs the node's analysis runner holds waiting; the authentication checks, held to their share, leave the rest to the MCP endpoint. */
const ANALYSIS_QUEUE = 32;

/** Makes the node's pools. */
export function createNodePools(): NodePools {
  const analysis = createAnalysisRunner({ timeoutMs: AUTHENTICATION_TIMEOUT_MS, concurrency: 2, queue: ANALYSIS_QUEUE });
  return {
    checks: { spam: createFairShare(SPAM_CHECKS), authentication: createFairShare(AUTHENTICATION_CHECKS) },
    analysis,
    close: () => analysis.close(),
  };
}
