/**
 * What the MCP tools say: trimmed text with a note, and error messages with
 * anything shaped like a credential cut out.
 */
import { test, expect } from '@playwright/test';
import { ConnectionError } from '../../../src/client/index.ts';
import { describeToolFailure, redactSecrets, toolError } from '../../../src/mcp/errors.ts';
import { trimmed } from '../../../src/mcp/format.ts';

test('a text over the bound is cut there, with a note saying how much was left out and how to read more', () => {
  expect(trimmed('abcdef', 10, 'x')).toBe('abcdef');
  expect(trimmed('a'.repeat(25), 10, 'call get_message')).toBe(`${'a'.repeat(10)}\n[… 15 more characters not shown; call get_message]`);
});

test('API keys, operator and inbox tokens, and bearer values are redacted from a tool error', () => {
  const text = redactSecrets('key tm_abcdefghijkl1234 token tmi_zzzzzzzzzzzz op tmo_qqqqqqqqqqqqqqqq Authorization: Bearer sess.abc.def X-Inbox-Token: raw123');
  expect(text).toBe('key [redacted] token [redacted] op [redacted] Authorization: Bearer [redacted] X-Inbox-Token: [redacted]');
  const result = toolError(new Error('failed with tm_secretsecretsecret'), 'http://127.0.0.1:8025/api/v1');
  expect(result.isError).toBe(true);
  expect(result.content[0]!.text).not.toContain('tm_secret');
});

test('a connection failure names the service URL and what to do', () => {
  const text = describeToolFailure(new ConnectionError('connect ECONNREFUSED 127.0.0.1:9'), 'http://127.0.0.1:9/api/v1');
  expect(text).toContain('The inboxkit service at http://127.0.0.1:9/api/v1 is not reachable');
  expect(text).toContain('npx inboxkit serve');
});
