/**
 * The link check of `message.checkLinks()` and `toHaveWorkingLinks()`: the
 * client's (so the MCP server runs the same check), requested through the
 * test's own `request` context.
 *
 * @packageDocumentation
 */
export { checkMessageLinks, describeCheckedLink, describeLinkReport } from '../client/index.ts';
export type { CheckedLink, LinkCheckContext, LinkCheckOptions, LinkCheckReport } from '../client/index.ts';
