/**
 * A repository file's text as a user would write it: imports of the sources
 * (`../src/playwright/index.ts`, …) become imports of the package
 * (`inboxkit/playwright`, …). Used by the README check and the consumer test.
 */
export function asPublished(text: string): string {
  return text
    .replace(/from '(?:\.\.\/)+src\/playwright\/index\.ts';.*$/gm, "from 'inboxkit/playwright';")
    .replace(/from '(?:\.\.\/)+src\/server\/index\.ts';.*$/gm, "from 'inboxkit/server';")
    .replace(/from '(?:\.\.\/)+src\/client\/index\.ts';.*$/gm, "from 'inboxkit';");
}
