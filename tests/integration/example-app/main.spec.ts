import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { expect, test } from '@playwright/test';
import { startSmtpReceiver } from './fixtures.ts';

const MAIN = fileURLToPath(new URL('../../../examples/app/main.ts', import.meta.url));

test('the command-line app sends through the SMTP port given as INBOXKIT_SMTP_PORT and prints its URL', async () => {
  const smtp = await startSmtpReceiver();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', INBOXKIT_SMTP_HOST: '127.0.0.1', INBOXKIT_SMTP_PORT: String(smtp.port) };
  delete env.SMTP_HOST;
  delete env.SMTP_PORT;
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const lines = createInterface({ input: child.stdout });
    const [firstLine] = (await once(lines, 'line')) as [string];
    expect(firstLine).toContain(`sending mail through SMTP 127.0.0.1:${smtp.port}`);
    const url = /listening on (http:\/\/\S+)/.exec(firstLine)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const response = await fetch(`${url}/login`, { method: 'POST', body: new URLSearchParams({ email: 'cli@example.com' }), redirect: 'manual' });
    expect(response.status).toBe(303);
    const mail = await smtp.nextMail('cli@example.com');
    expect(mail.parsed.subject).toBe('Your sign-in code');
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
    await smtp.close();
  }
});
