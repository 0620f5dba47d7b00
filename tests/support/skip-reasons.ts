/**
 * A reporter that ends the run with one line per reason tests were skipped,
 * with how many, so that "171 skipped" always says why (Playwright's own
 * reporters count skipped tests but do not name the reason).
 */
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

/** Counts skipped tests by reason and prints one line per reason when the run ends. */
export default class SkipReasons implements Reporter {
  private readonly reasons = new Map<string, number>();

  printsToStdio(): boolean {
    return true;
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    if (result.status !== 'skipped') return;
    const annotation = [...result.annotations, ...test.annotations].find((a) => a.type === 'skip' || a.type === 'fixme');
    const reason = annotation?.description?.trim() || 'no reason given';
    this.reasons.set(reason, (this.reasons.get(reason) ?? 0) + 1);
  }

  onEnd(_result: FullResult): void {
    for (const [reason, count] of [...this.reasons].sort((a, b) => b[1] - a[1])) {
      console.log(`  ${count} skipped: ${reason}`);
    }
  }
}
