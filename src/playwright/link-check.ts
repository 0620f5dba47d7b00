/**
 * The link check of `message.checkLinks()` and `toHaveWorkingLinks()`: the
 * client's (so the MCP server runs the same check), requested through the
 * test's own `request` context.
 *
 * @packageDocumentation
 */
export { checkMessageLinks, describeCheckedLink, describeLinkReport } from '../checks/link-check.ts';
export type { CheckedLink, LinkCheckOptions, LinkCheckReport } from '../client/index.ts';
import type { APIRequestContext } from '@playwright/test';
import type { LinkCheckContext as ClientLinkCheckContext } from '../client/index.ts';

/** The link check's context as the fixtures give it: the test's own `request` fixture (which also POSTs, for `unsubscribe()`) and `baseURL`. */
export interface LinkCheckContext extends ClientLinkCheckContext {
  /** The test's `request` fixture. */
  request: APIRequestContext;
}
