/**
 * Every flag of `inboxkit serve` may come from the environment (issue 40), as
 * an operator's container or unit file sets it: INBOXKIT_ and the flag in
 * capitals; the command line wins; a bad value names the variable.
 */
import { spawnSync } from 'node:child_process';
import { test, expect } from '@playwright/test';
import { SERVE_FLAGS, envNameOf } from '../../../src/cli/serve-flags.ts';
import { CLI, spawnServe } from '../../support/serve.ts';
import { RawSmtp } from '../adversarial/helpers.ts';

test('each flag has its own environment variable', () => {
  const names = SERVE_FLAGS.map(envNameOf);
  expect(new Set(names).size).toBe(names.length);
  expect(envNameOf(SERVE_FLAGS.find((r) => r.flag === 'smtp-max-connections-per-address')!)).toBe('INBOXKIT_SMTP_MAX_CONNECTIONS_PER_ADDRESS');
  expect(envNameOf(SERVE_FLAGS.find((r) => r.flag === 'db')!)).toBe('DATABASE_URL');
});

test('inboxkit serve reads its flags from the environment: a cap, a switch and a duration', { tag: '@heavy' }, async () => {
  const served = await spawnServe(['--no-mcp'], {
    env: { INBOXKIT_SMTP_MAX_CONNECTIONS_PER_ADDRESS: '1', INBOXKIT_METRICS: 'true', INBOXKIT_DRAIN_TIMEOUT: '5s' },
  });
  try {
    const first = await RawSmtp.connect(served.ready.smtpPort);
    expect((await first.reply()).code).toBe(220);
    const second = await RawSmtp.connect(served.ready.smtpPort);
    const refused = await second.reply();
    expect(refused.code).toBe(421);
    expect(refused.text).toContain('the cap is 1');
    first.end();
    expect((await fetch(`${served.ready.url}/metrics`)).status).toBe(200);
  } finally {
    served.child.kill('SIGTERM');
  }
});

test('a bad value in the environment is refused, naming the variable', { tag: '@heavy' }, () => {
  const run = spawnSync(process.execPath, [CLI, 'serve', '--port', '0', '--smtp-port', '0'], { env: { ...process.env, INBOXKIT_DRAIN_TIMEOUT: 'soon' }, encoding: 'utf8' });
  expect(run.status).toBe(2);
  expect(run.stderr).toContain('INBOXKIT_DRAIN_TIMEOUT must be a duration');
});
