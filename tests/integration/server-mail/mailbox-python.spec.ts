/**
 * Python's own imaplib and poplib read, search, flag and delete a test
 * inbox's mail (issue 46), run with the system's python3. Skipped, saying so,
 * where python3 is absent.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { expect, startMailServer, test } from './harness.ts';

const script = fileURLToPath(new URL('./python/mailbox_clients.py', import.meta.url));
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });

test('imaplib and poplib read, search, flag and delete an inbox\'s mail; a wrong token is refused', async () => {
  test.skip(python.error !== undefined || python.status !== 0, 'python3 is not installed here: the imaplib/poplib check needs the system Python');
  const mail = await startMailServer({ imapPort: 0, pop3Port: 0 });
  try {
    const inbox = await mail.createInbox();
    const other = await mail.createInbox();
    await mail.send({ from: 'alice@one.example', to: other.address, subject: 'Invoice 0', text: 'not this inbox' });
    await mail.send({ from: 'alice@one.example', to: inbox.address, subject: 'Welcome aboard', text: 'hello' });
    await mail.send({ from: 'bob@two.example', to: inbox.address, subject: 'Invoice 7', text: 'pay' });
    await mail.send({ from: 'alice@one.example', to: inbox.address, subject: 'Reset', text: 'link' });
    const summaries = (await mail.waitForMessages(inbox, 3)).reverse();

    // Asynchronously: the service answering Python runs in this process.
    const run = await promisify(execFile)('python3', [script, '127.0.0.1', String(mail.server.imap!.port), String(mail.server.pop3!.port), inbox.address, inbox.token], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    const seen = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(seen.wrong_token).toMatch(/AUTHENTICATIONFAILED/);
    expect(seen).toMatchObject({
      exists: 3,
      unseen: '1 2 3',
      from_alice: '1 3',
      subject_invoice: '2',
      rfc822_has_subject: true,
      unseen_after_fetch: '2 3',
      uids: summaries.map((s) => String(s.seq)),
      expunged: ['2'],
      exists_after_expunge: 2,
    });
    expect(seen.flags_1).toMatch(/FLAGS \(\\Seen\)/);
    const [, second] = summaries.filter((s) => s.subject !== 'Invoice 7');
    expect(seen.pop_stat).toEqual([2, expect.any(Number)]);
    expect(seen.pop_uidl).toEqual([`1 ${summaries[0]!.id}`, `2 ${second!.id}`]);
    expect(seen.pop_retr_subject).toEqual(['Subject: Reset']);
    expect(seen.pop_top_lines).toBe(true);
    expect(seen.pop_stat_after_dele).toEqual([1, second!.size]);
    expect((await mail.listMessages(inbox)).map((m) => m.subject)).toEqual(['Reset']);
  } finally {
    await mail.close();
  }
});
