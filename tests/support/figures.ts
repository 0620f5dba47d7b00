/**
 * Figures a test measured (counts, rates, tables of what ran), printed only
 * with `INBOXKIT_FIGURES=1`, so that `npm test` prints a readable summary:
 *
 *   INBOXKIT_FIGURES=1 npx playwright test tests/integration/adversarial
 *
 * Timings belong to `npm run bench`, not here.
 */

/** Whether figures are printed (`INBOXKIT_FIGURES=1`). */
export const FIGURES = process.env.INBOXKIT_FIGURES === '1';

/** Prints a line of figures when they are asked for. */
export function printFigure(line: string): void {
  if (FIGURES) console.log(line);
}

/** Prints a table of figures when they are asked for. */
export function printFigureTable(title: string, rows: object[]): void {
  if (!FIGURES) return;
  console.log(title);
  console.table(rows);
}

