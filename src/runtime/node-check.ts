/**
 * Fails at import, with one line, on a Node.js that inboxkit does not support.
 * Every entry point (`inboxkit`, `inboxkit/playwright`, `inboxkit/server` and
 * the `inboxkit` command) imports this module first, so the message comes
 * before any dependency that would crash on an old Node.js in its own words.
 * (Module evaluation follows import order; nothing in the entry points' static
 * graphs fails earlier, at link time: `node:sqlite` is loaded when a store opens.)
 *
 * @packageDocumentation
 */
import { nodeVersionProblem, requiredNodeRange } from './node-version.ts';

const problem = nodeVersionProblem(process.versions.node, requiredNodeRange(), process.execPath);
if (problem !== null) {
  const error = new Error(problem);
  error.name = 'UnsupportedNodeError';
  // One line, wherever it is printed: a stack would point at this file, which is not the problem.
  error.stack = `${error.name}: ${problem}`;
  throw error;
}
