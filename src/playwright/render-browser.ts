/**
 * The browser emails are rendered in for snapshots and audits: one per worker,
 * of the project's browser type and launch options (or its `connectOptions`),
 * launched on the first render only, so tests that never render an email never
 * start a browser for it.
 *
 * @packageDocumentation
 */
import type { Browser, PlaywrightWorkerArgs, PlaywrightWorkerOptions } from '@playwright/test';
import type { BrowserSource } from './render.ts';

/** The worker fixture's body: `use` gets a function that launches (once) and returns the browser. */
export async function renderBrowserFixture(
  { playwright, browserName, connectOptions }: Pick<PlaywrightWorkerArgs, 'playwright'> & Pick<PlaywrightWorkerOptions, 'browserName' | 'connectOptions'>,
  use: (source: BrowserSource) => Promise<void>,
): Promise<void> {
  let launched: Promise<Browser> | null = null;
  const source: BrowserSource = () => {
    // Playwright's own `_browserOptions` fixture (auto, worker-scoped) has set the
    // project's launch options as the defaults of launch(), headless and channel included.
    launched ??= connectOptions ? playwright[browserName].connect(connectOptions.wsEndpoint, connectOptions) : playwright[browserName].launch();
    return launched;
  };
  await use(source);
  if (launched !== null) await (launched as Promise<Browser>).then((browser) => browser.close(), () => {});
}
