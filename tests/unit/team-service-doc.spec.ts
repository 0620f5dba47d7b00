/**
 * docs/team-service.md shows the HAProxy, Postfix and Prometheus
 * configurations the team-service harness runs, word for word: each file of
 * docs/team-service/ appears in the guide as one fenced block.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { test, expect } from '@playwright/test';

const DIR = new URL('../../docs/team-service/', import.meta.url);
const GUIDE = readFileSync(new URL('../../docs/team-service.md', import.meta.url), 'utf8');

for (const file of readdirSync(DIR)) {
  test(`the guide shows docs/team-service/${file} word for word`, () => {
    const marker = `<!-- file: docs/team-service/${file} -->\n`;
    const at = GUIDE.indexOf(marker);
    expect(at, `docs/team-service.md has no block for ${file}`).toBeGreaterThanOrEqual(0);
    const fence = GUIDE.slice(at + marker.length);
    const body = fence.slice(fence.indexOf('\n') + 1, fence.indexOf('\n```\n') + 1);
    expect(body).toBe(readFileSync(new URL(file, DIR), 'utf8'));
  });
}
