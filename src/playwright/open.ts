/**
 * Showing an email in a browser page: the sanitized HTML body, set as the page's
 * content, with every request the email itself would make blocked.
 *
 * @packageDocumentation
 */
import type { Locator, Page, Route } from '@playwright/test';
import type { Message } from '../client/index.ts';
import { renderEmailDocument } from './report.ts';

/** The parts of a message that opening it in the browser (`openEmail`) shows. */
export type OpenableMessage = Pick<Message, 'subject' | 'from' | 'to' | 'cc' | 'receivedAt' | 'html' | 'text' | 'headers'>;

/** Removes a route handler from a page; idempotent. */
type CloseEmailView = () => Promise<void>;

/**
 * Renders `message` in `page` and returns the `<body>` to click in, plus a
 * function that lifts the request blocking.
 *
 * While the email is shown, every request from the page is aborted (images,
 * tracking pixels, stylesheets, fonts, prefetches) except a top-level
 * navigation: clicking a link inside the email navigates the page there. From
 * that navigation on the blocking is lifted, so the application the link leads
 * to loads normally. Links that would open a new window (`target="_blank"`)
 * open in the same page instead, so the test keeps driving one page.
 *
 * The page is first navigated to `about:blank`, so the email runs in no
 * application's origin and relative links do not silently resolve against the
 * page the test was on.
 */
export async function openEmail(page: Page, message: OpenableMessage): Promise<{ body: Locator; close: CloseEmailView }> {
  let routed = true;
  const handler = async (route: Route): Promise<void> => {
    const request = route.request();
    if (routed && request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      routed = false;
      await route.fallback();
      await page.unroute('**/*', handler).catch(() => {});
      return;
    }
    if (!routed) return route.fallback();
    await route.abort('blockedbyclient');
  };
  const close: CloseEmailView = async () => {
    if (!routed) return;
    routed = false;
    await page.unroute('**/*', handler).catch(() => {});
  };
  await page.goto('about:blank');
  await page.route('**/*', handler);
  await page.setContent(renderEmailDocument(message, { header: false }), { waitUntil: 'load' });
  await page.evaluate(() => {
    for (const element of document.querySelectorAll('a[target], area[target], form[target]')) element.removeAttribute('target');
  });
  return { body: page.locator('body'), close };
}
