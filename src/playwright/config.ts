/**
 * {@link defineConfig}: Playwright's `defineConfig` with the `inboxkit` option
 * typed, so that `use: { inboxkit: { … } }` type-checks without a type argument.
 *
 * @packageDocumentation
 */
import { defineConfig as playwrightDefineConfig } from '@playwright/test';
import type { PlaywrightTestConfig } from '@playwright/test';
import type { InboxkitOptions } from './fixtures.ts';

/** The options inboxkit adds to a config's (and a project's) `use`. */
export interface InboxkitUseOptions {
  /** The fixtures' options; see {@link InboxkitOptions}. */
  inboxkit?: InboxkitOptions;
}

/**
 * A Playwright config whose `use` (and every project's `use`) also takes the
 * `inboxkit` option. `T` and `W` are your own test and worker options, as in
 * Playwright's `PlaywrightTestConfig<T, W>`.
 */
export type InboxkitConfig<T = object, W = object> = PlaywrightTestConfig<T, W & InboxkitUseOptions>;

/**
 * Playwright's `defineConfig`, with `use: { inboxkit: { … } }` typed (the
 * config it returns is Playwright's own). Import it from `inboxkit/playwright`
 * instead of `@playwright/test`; like Playwright's, it merges further configs
 * given after the first.
 *
 * @example
 * ```ts
 * import { defineConfig } from 'inboxkit/playwright';
 *
 * export default defineConfig({
 *   use: { inboxkit: { baseUrl: 'https://inbox.example.com', apiKey: () => process.env.INBOXKIT_API_KEY } },
 * });
 * ```
 */
export function defineConfig<T = object, W = object>(config: InboxkitConfig<T, W>, ...configs: InboxkitConfig<T, W>[]): InboxkitConfig<T, W> {
  return playwrightDefineConfig<T, W & InboxkitUseOptions>(config, ...configs);
}
