/**
 * The tools and prompts read well to a model: every tool says what it
 * returns with an example, every input field is described, and the list is
 * fixed and short.
 */
import { test, expect } from '@playwright/test';
import { PROMPTS, TOOLS } from '../../../src/mcp/index.ts';

test('every tool has a snake_case name, a title, a description with an example, and described input fields', () => {
  expect(TOOLS.length).toBeLessThanOrEqual(12);
  expect(new Set(TOOLS.map((t) => t.name)).size).toBe(TOOLS.length);
  for (const tool of TOOLS) {
    expect(tool.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(tool.title.length).toBeGreaterThan(5);
    expect(tool.description, tool.name).toMatch(/Example: [a-z_]+\(\{/);
    expect(tool.description.length, tool.name).toBeLessThan(700);
    for (const [field, schema] of Object.entries(tool.input)) expect(schema.description, `${tool.name}.${field}`).toBeTruthy();
  }
});

test('every prompt names the inboxkit tools it uses, and each of them exists', () => {
  const names = new Set(TOOLS.map((t) => t.name));
  for (const prompt of PROMPTS) {
    const text = prompt.text({});
    const used = [...text.matchAll(/\b(create_inbox|wait_for_message|get_[a-z]+|list_[a-z]+|delete_inbox|check_[a-z]+)\b/g)].map((m) => m[1]!);
    expect(used.length, prompt.name).toBeGreaterThanOrEqual(3);
    for (const name of used) expect(names, `${prompt.name} uses ${name}`).toContain(name);
  }
});
