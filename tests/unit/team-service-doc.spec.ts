/**
 * docs/team-service.md shows the HAProxy, Postfix and Prometheus
 * configurations the team-service harness runs, word for word: each file of
 * docs/team-service/ appears in the guide as one fenced block.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { test, expect } from '@playwright/test';
import { durationMs, flagValue, guideCommand } from '../support/team-guide.ts';

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

test('every {{PLACEHOLDER}} of the configuration files is defined in the guide\'s placeholder table', () => {
  const used = new Set(readdirSync(DIR).flatMap((file) => [...readFileSync(new URL(file, DIR), 'utf8').matchAll(/\{\{([A-Z_]+)\}\}/g)].map((m) => m[1]!)));
  const table = GUIDE.slice(GUIDE.indexOf('| placeholder | what to put there | the harness |'));
  const defined = new Set([...table.slice(0, table.indexOf('\n\n')).matchAll(/`\{\{([A-Z_]+)\}\}`/g)].map((m) => m[1]!));
  expect([...used].filter((name) => !defined.has(name))).toEqual([]);
});

test('the guide\'s drain numbers agree with its HAProxy checks and stop timeouts: the notice outlasts inter × fall, the stop timeout the drain and its second', () => {
  const serve = guideCommand('npx inboxkit serve');
  const notice = durationMs(flagValue(serve, '--drain-notice') ?? '0s');
  const timeout = durationMs(flagValue(serve, '--drain-timeout') ?? '25s');
  const haproxy = readFileSync(new URL('haproxy.cfg', DIR), 'utf8');
  for (const [, inter, fall] of haproxy.matchAll(/default-server inter (\d+)s fall (\d+)/g)) expect(notice, 'notice against inter × fall').toBeGreaterThan(Number(inter) * 1000 * Number(fall));
  const stop = Number(/--stop-timeout (\d+)/.exec(GUIDE)?.[1]);
  expect(stop * 1000, 'the container\'s stop timeout against --drain-timeout + 1 s').toBeGreaterThanOrEqual(timeout + 1000);
  expect(GUIDE).toContain(`INBOXKIT_DRAIN_NOTICE=${flagValue(serve, '--drain-notice')}`);
});

test('the guide names the Node.js floor of package.json for every node', () => {
  const engines = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines.node;
  const floor = /(\d+\.\d+)(?:\.0)?$/.exec(engines.replace(/^>=\s*/, ''))?.[1];
  expect(GUIDE).toContain(`Every node needs Node.js ${floor} or later`);
});
