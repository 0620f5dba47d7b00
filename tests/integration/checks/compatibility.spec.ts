/**
 * Client compatibility of a received email: the features that named clients
 * lack, from the bundled caniemail data, and Mailpit's score per client.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { rawData } from 'caniemail';
import { test, expect } from '../client/fixtures.ts';
import { InboxkitError, checkCompatibility } from '../../../src/client/index.ts';

const FIXTURE = readFileSync(fileURLToPath(new URL('../../fixtures/compat/modern-layout.eml', import.meta.url)));

test.describe('compatibility', () => {
  test('a fixture email lists exactly the features Gmail and Outlook for Windows do not support', async ({ guest, send }) => {
    const inbox = await guest.inboxes.create();
    await send({ envelope: { from: 'news@acme.example', to: inbox.address }, raw: FIXTURE });
    const message = await inbox.waitForMessage({ subject: 'Our spring collection' }, { timeout: 10_000 });

    const report = await message.compatibility(['gmail.desktop-webmail', 'outlook.windows']);

    expect(report.source).toBe('original');
    expect(report.compatible).toBe(false);
    const [gmail, outlook] = report.clients;
    expect(gmail?.name).toBe('Gmail Desktop Webmail');
    expect(gmail?.unsupported.map((f) => f.slug)).toEqual(['css-position']);
    expect(gmail?.unsupported[0]).toMatchObject({ feature: 'position', occurrences: 1, lines: [11], url: expect.stringContaining('caniemail.com') });
    expect(outlook?.name).toBe('Outlook Windows');
    // The form and its input: gone from the sanitized HTML, found in the original part.
    expect(outlook?.unsupported.map((f) => f.slug).sort()).toEqual(
      ['css-at-media', 'css-border-radius', 'css-display-flex', 'css-position', 'css-pseudo-class-hover', 'html-form', 'html-input-text', 'image-webp'].sort(),
    );
    for (const client of report.clients) {
      expect(client.score.supported + client.score.partial + client.score.unsupported).toBeCloseTo(100, 1);
      expect(client.score.unsupported).toBeGreaterThan(0);
    }
  });

  test('a family name stands for all its platforms, and the clients keep the order asked', async () => {
    const report = await checkCompatibility('<p>Hello</p>', ['outlook.windows', 'apple-mail']);
    expect(report.clients.map((c) => c.client)).toEqual(['outlook.windows', 'apple-mail.ios', 'apple-mail.macos']);
    expect(report.compatible).toBe(true);
  });

  test('the score is Mailpit\'s: the share of the client\'s versions lacking the worst feature, weighted by its use per element', async () => {
    const html = '<div style="position:absolute">a</div><p>b</p><p>c</p><p>d</p>';
    const report = await checkCompatibility(html, ['gmail.desktop-webmail']);
    const versions = Object.values(rawData.data.find((f) => f.slug === 'css-position')?.stats.gmail?.['desktop-webmail'] ?? {});
    const no = versions.filter((v) => v.startsWith('n')).length;
    const partly = versions.length - no - versions.filter((v) => v.startsWith('y')).length;
    expect(report.elements).toBe(4);
    expect(report.clients[0]?.score.unsupported).toBeCloseTo(((no / versions.length) * 100) / 4, 1);
    expect(report.clients[0]?.score.partial).toBeCloseTo(((partly / versions.length) * 100) / 4, 1);
  });

  test('a text-only email is compatible with every client', async () => {
    const report = await checkCompatibility(null, 'gmail');
    expect(report).toMatchObject({ source: 'none', compatible: true });
    expect(report.clients.every((c) => c.score.supported === 100)).toBe(true);
  });

  test('unknown client names are refused with a suggestion and the known names', async () => {
    const cases: Array<[string | string[], RegExp]> = [
      ['gmial', /unknown email client "gmial" \(did you mean "gmail"\?\).*family \(.*apple-mail.*\)/],
      [['gmail', 'outlook.linux'], /unknown email client "outlook\.linux": outlook has no platform "linux".*its platforms are .*windows/],
      ['lotus-notes', /unknown email client "lotus-notes"\. Clients are a family/],
      [[], /name at least one email client/],
    ];
    for (const [names, message] of cases) {
      const error = await checkCompatibility('<p>x</p>', names).then(() => null, (e: unknown) => e);
      expect(error, JSON.stringify(names)).toBeInstanceOf(InboxkitError);
      expect((error as Error).message).toMatch(message);
    }
  });
});
