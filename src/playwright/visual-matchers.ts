/**
 * Matchers on how the email looks: `toHaveScreenshot` (a visual snapshot of
 * the rendered email, on Playwright's own snapshot machinery) and
 * `toBeAccessible` (axe-core on the rendered email). Part of `inboxkitMatchers`.
 *
 * `toHaveScreenshot` keeps its meaning for pages and locators: any other
 * receiver is handed to Playwright's own matcher unchanged.
 *
 * @packageDocumentation
 */
import { test as base, expect as baseExpect } from '@playwright/test';
import type { ExpectMatcherState, Locator, MatcherReturnType, Page, PageAssertionsToHaveScreenshotOptions } from '@playwright/test';
import { auditPage, checkAccessibilityOptions, describeViolation, mergeViolations } from './accessibility.ts';
import type { AccessibilityOptions, AccessibilityViolation } from './accessibility.ts';
import { describeRender, resolveWidth } from './render.ts';
import type { RenderOptions, RenderWidth, RenderedEmail } from './render.ts';
import { messageTitle } from './report.ts';
import { TestMessage } from './test-message.ts';

/** Options of `expect(message).toHaveScreenshot()`: how to render, and Playwright's comparison options. */
export interface EmailScreenshotOptions extends RenderOptions, Pick<PageAssertionsToHaveScreenshotOptions, 'maxDiffPixels' | 'maxDiffPixelRatio' | 'threshold' | 'timeout' | 'maskColor' | 'omitBackground' | 'stylePath'> {
  /** Several widths, one snapshot each (the name gets `-<width>` before its extension). Not with `width`. */
  widths?: readonly RenderWidth[];
  /** More parts to mask: CSS selectors inside the email, or functions from the email's page to a locator. */
  mask?: ReadonlyArray<string | ((page: Page) => Locator)>;
}

function nameForWidth(name: string | readonly string[] | undefined, width: RenderWidth, several: boolean): string | string[] | undefined {
  if (name === undefined || !several) return typeof name === 'string' || name === undefined ? name : [...name];
  const suffix = (n: string) => (/\.png$/i.test(n) ? n.replace(/\.png$/i, `-${width}.png`) : `${n}-${width}`);
  if (typeof name === 'string') return suffix(name);
  return [...name.slice(0, -1), suffix(name.at(-1) ?? 'email')];
}

async function attachText(name: string, body: string): Promise<void> {
  await base.info().attach(name, { body, contentType: 'text/plain' });
}

function notATestMessage(state: ExpectMatcherState, name: string, value: unknown): Error {
  return new Error(
    `${state.utils.matcherHint(name, 'message', 'options', { isNot: state.isNot, promise: state.promise })}\n\n` +
      `The received value must be a message from the inbox fixture's waits (inbox.waitForMessage()), which renders it in the test's browser; got ${state.utils.printReceived(value)}.`,
  );
}

/** Playwright's own matcher, for pages and locators, with its result turned back into a matcher result. */
async function delegate(state: ExpectMatcherState, receiver: unknown, args: unknown[]): Promise<MatcherReturnType> {
  const target = state.isNot ? baseExpect(receiver as Page).not : baseExpect(receiver as Page);
  try {
    await (target.toHaveScreenshot as (...a: unknown[]) => Promise<void>)(...args);
    return { pass: !state.isNot, name: 'toHaveScreenshot', message: () => '' };
  } catch (error) {
    return { pass: state.isNot, name: 'toHaveScreenshot', message: () => (error instanceof Error ? error.message : String(error)) };
  }
}

async function snapshotOne(message: TestMessage, name: string | string[] | undefined, options: EmailScreenshotOptions, width: RenderWidth | undefined, isNot: boolean): Promise<{ error: string | null; render: RenderedEmail | null }> {
  const { widths: _widths, mask = [], maxDiffPixels, maxDiffPixelRatio, threshold, timeout, maskColor, omitBackground, stylePath, ...renderOptions } = options;
  const render = await message.render({ ...renderOptions, ...(width !== undefined ? { width } : {}) });
  try {
    const page = render.page;
    const masks = [...mask.map((m) => (typeof m === 'string' ? page.locator(m) : m(page))), ...(render.dynamic.length > 0 ? [page.locator('[data-inboxkit-dynamic]')] : [])];
    const compare = { maxDiffPixels, maxDiffPixelRatio, threshold, timeout, maskColor, omitBackground, stylePath };
    const screenshot = { ...Object.fromEntries(Object.entries(compare).filter(([, v]) => v !== undefined)), fullPage: true, animations: 'disabled', caret: 'hide', scale: 'css', mask: masks } as const;
    const target = isNot ? baseExpect(page).not : baseExpect(page);
    try {
      if (name === undefined) await target.toHaveScreenshot(screenshot);
      else await target.toHaveScreenshot(name, screenshot);
      return { error: null, render };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error), render };
    }
  } finally {
    await render.close();
  }
}

/** The matchers; spread into `inboxkitMatchers`. */
export const visualMatchers = {
  /**
   * On a message: renders the email in a page of its own and compares it with
   * the snapshot through Playwright's `expect(page).toHaveScreenshot()`, so
   * snapshot paths, `snapshotPathTemplate`, `--update-snapshots`, thresholds and
   * the diff attachments are Playwright's. Dynamic parts (the one-time code,
   * tokens in visible URLs, dates) are masked and listed in the report. On a
   * page or a locator: Playwright's own `toHaveScreenshot`.
   *
   * @example
   * ```ts
   * await expect(message).toHaveScreenshot('welcome.png', { widths: ['mobile', 'desktop'] });
   * await expect(message).toHaveScreenshot('welcome-gmail-dark.png', { client: 'gmail.desktop-webmail', colorScheme: 'dark' });
   * ```
   */
  async toHaveScreenshot(this: ExpectMatcherState, message: TestMessage, nameOrOptions?: string | readonly string[] | EmailScreenshotOptions, maybeOptions?: EmailScreenshotOptions): Promise<MatcherReturnType> {
    const name = 'toHaveScreenshot';
    if (!(message instanceof TestMessage)) {
      if (message !== null && typeof message === 'object' && 'subject' in message && 'links' in message) throw notATestMessage(this, name, message);
      return delegate(this, message, [nameOrOptions, maybeOptions].filter((a) => a !== undefined));
    }
    const hint = this.utils.matcherHint(name, 'message', 'name', { isNot: this.isNot, promise: this.promise });
    const snapshotName = typeof nameOrOptions === 'string' || Array.isArray(nameOrOptions) ? (nameOrOptions as string | readonly string[]) : undefined;
    const options: EmailScreenshotOptions = (snapshotName === undefined ? (nameOrOptions as EmailScreenshotOptions | undefined) : maybeOptions) ?? {};
    if (options.widths !== undefined && options.width !== undefined) throw new Error(`${hint}\n\nGive either width or widths, not both.`);
    if (options.widths !== undefined && options.widths.length === 0) throw new Error(`${hint}\n\nwidths is empty: name at least one width (a number, 'mobile' or 'desktop').`);
    for (const w of options.widths ?? []) resolveWidth(w);
    const widths = options.widths ?? [options.width];
    const failures: string[] = [];
    const facts: string[] = [];
    for (const width of widths) {
      const { error, render } = await snapshotOne(message, nameForWidth(snapshotName, width ?? 'desktop', widths.length > 1), options, width, this.isNot);
      if (render) facts.push(...describeRender(render));
      if (error !== null) failures.push(error);
    }
    await attachText(`visual snapshot — ${messageTitle(message)}`, facts.join('\n'));
    const pass = this.isNot ? failures.length > 0 : failures.length === 0;
    return {
      pass,
      name,
      message: () => `${hint}\n\n${failures.join('\n\n') || `Expected ${JSON.stringify(message.subject)} to differ from its snapshot`}\n\nRendered: ${facts.join('\n')}`,
    };
  },

  /**
   * Passes when axe-core finds no violation (at or above `impact`) in the
   * rendered email, in light and dark mode: missing `lang`, image alt text,
   * link names, colour contrast, heading order, layout tables without
   * `role="presentation"` and the rest of axe's WCAG A/AA and best-practice
   * rules (page-structure rules an email cannot meet are left out). The failure
   * lists each violation with its elements, impact and help URL; the report gets them too.
   *
   * @example
   * ```ts
   * await expect(message).toBeAccessible();
   * await expect(message).toBeAccessible({ impact: 'serious', disableRules: ['color-contrast'] });
   * ```
   */
  async toBeAccessible(this: ExpectMatcherState, message: TestMessage, options: AccessibilityOptions & Pick<RenderOptions, 'client' | 'width' | 'images'> = {}): Promise<MatcherReturnType> {
    const name = 'toBeAccessible';
    if (!(message instanceof TestMessage)) throw notATestMessage(this, name, message);
    const hint = this.utils.matcherHint(name, 'message', 'options', { isNot: this.isNot, promise: this.promise });
    checkAccessibilityOptions(options);
    const perScheme: Array<{ scheme: 'light' | 'dark'; violations: Omit<AccessibilityViolation, 'colorSchemes'>[] }> = [];
    for (const scheme of options.colorSchemes ?? (['light', 'dark'] as const)) {
      const render = await message.render({ colorScheme: scheme, maskDynamic: false, images: options.images ?? 'placeholder', ...(options.client ? { client: options.client } : {}), ...(options.width !== undefined ? { width: options.width } : {}) });
      try {
        perScheme.push({ scheme, violations: await auditPage(render.page, options) });
      } finally {
        await render.close();
      }
    }
    const violations = mergeViolations(perScheme);
    const body = violations.map(describeViolation).join('\n');
    await attachText(`accessibility — ${messageTitle(message)}`, violations.length === 0 ? 'axe-core found no violation' : body);
    return {
      pass: violations.length === 0,
      name,
      message: () =>
        violations.length === 0
          ? `${hint}\n\nExpected: an accessibility violation in ${JSON.stringify(message.subject)}\nReceived: none`
          : `${hint}\n\nExpected: no accessibility violation in ${JSON.stringify(message.subject)}\nReceived: ${violations.length} rule${violations.length === 1 ? '' : 's'} broken (axe-core):\n${body}`,
    };
  },
};
