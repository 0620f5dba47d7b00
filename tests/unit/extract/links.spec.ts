import { test, expect } from '@playwright/test';
import { AmbiguousLinkError, ExtractionError, LinkNotFoundError, extractLinks, findLink } from '../../../src/extract/index.ts';
import { InboxkitError } from '../../../src/client/index.ts';

test.describe('reading links from HTML', () => {
  test('HTML entities in hrefs are decoded, including an ampersand escaped twice', () => {
    const html = '<p><a href="https://a.example/v?x=1&amp;y=2">one</a> <a href="https://a.example/w?x=1&amp;amp;y=2">two</a></p>';
    expect(extractLinks(html).map((l) => l.href)).toEqual(['https://a.example/v?x=1&y=2', 'https://a.example/w?x=1&y=2']);
  });

  test('relative hrefs are resolved against baseUrl, and kept as written without one', () => {
    const html = '<p><a href="/reset?t=abc">Reset</a> <a href="confirm/2">Confirm</a></p>';
    expect(extractLinks({ html, baseUrl: 'https://app.example.com/account/' }).map((l) => l.href)).toEqual([
      'https://app.example.com/reset?t=abc',
      'https://app.example.com/account/confirm/2',
    ]);
    expect(extractLinks({ html }).map((l) => l.href)).toEqual(['/reset?t=abc', 'confirm/2']);
  });

  test('links come in document order and the same href twice is one entry with both texts', () => {
    const html = `<table><tr><td><a href="https://x.example/logo"><img alt="Acme"></a></td></tr>
      <tr><td><a href="https://x.example/verify?t=1">https://x.example/verify?t=1</a></td></tr>
      <tr><td><a href="https://x.example/verify?t=1">Verify email</a></td></tr>
      <tr><td><a href="https://x.example/help">Help</a></td></tr></table>`;
    const links = extractLinks(html);
    expect(links.map((l) => l.href)).toEqual(['https://x.example/logo', 'https://x.example/verify?t=1', 'https://x.example/help']);
    expect(links[0]?.text).toBe('Acme');
    expect(links[1]?.text).toBe('Verify email');
    expect(links[1]?.texts).toEqual(['https://x.example/verify?t=1', 'Verify email']);
  });

  test('mailto, tel, cid, javascript and #anchor links are left out unless mailto is asked for', () => {
    const html = `<p><a href="#top">Top</a> <a href="mailto:help@x.example">Mail us</a> <a href="tel:+4930123">Call</a>
      <a href="cid:logo@x">Logo</a> <a href="javascript:void(0)">JS</a> <a href="https://x.example/ok">OK</a></p>`;
    expect(extractLinks(html).map((l) => l.href)).toEqual(['https://x.example/ok']);
    expect(extractLinks(html, { includeMailto: true }).map((l) => l.href)).toEqual(['mailto:help@x.example', 'https://x.example/ok']);
  });

  test('the context is the sentence around the link, or the text around a button', () => {
    const html = `<p>Welcome aboard. We are glad you joined the community of makers and tinkerers from all around the world, truly.
      To finish, <a href="https://x.example/v">confirm your address</a> within a day. After that you can invite friends and colleagues.</p>
      <table><tr><td><p>Reset your password with the button below.</p><p><a href="https://x.example/r">Reset</a></p></td></tr></table>`;
    const [confirm, reset] = extractLinks(html);
    expect(confirm?.context).toBe('To finish, confirm your address within a day.');
    expect(reset?.context).toBe('Reset your password with the button below. Reset');
  });

  test('whitespace and line breaks inside an href are removed', () => {
    expect(extractLinks('<a href=" https://x.example/a\n/b?c=1 ">x</a>')[0]?.href).toBe('https://x.example/a/b?c=1');
  });
});

test.describe('reading links from plain text', () => {
  test('the text body is used when there is no HTML, and trailing punctuation is not part of a URL', () => {
    const text = 'Confirm here: https://x.example/c?t=1.\nOr see (https://x.example/help).';
    expect(extractLinks({ html: null, text }).map((l) => [l.href, l.text, l.source])).toEqual([
      ['https://x.example/c?t=1', 'Confirm here', 'text'],
      ['https://x.example/help', 'Or see', 'text'],
    ]);
  });

  test('the text body is used when the HTML has no links', () => {
    expect(extractLinks({ html: '<p>Hello</p>', text: 'Go to https://x.example/go' })[0]?.href).toBe('https://x.example/go');
  });

  test('a URL in angle brackets may span lines', () => {
    const text = 'Reset your password:\n<https://x.example/reset?token=abc-\n  def123>\nThanks';
    const [link] = extractLinks(text);
    expect(link?.href).toBe('https://x.example/reset?token=abc-def123');
    expect(link?.text).toBe('Reset your password');
  });

  test('text made from HTML ("text [url]") keeps the anchor text, even on the line above', () => {
    const text = 'Acme\n[https://x.example/logo.png]https://x.example/?utm_source=mail\n\nJoin board\n[https://x.example/join?t=1]\n\nHelp [https://x.example/help] · Privacy\n[https://x.example/privacy]';
    expect(extractLinks(text).map((l) => [l.text, l.href])).toEqual([
      ['Acme', 'https://x.example/logo.png'],
      ['Acme', 'https://x.example/?utm_source=mail'],
      ['Join board', 'https://x.example/join?t=1'],
      ['Help', 'https://x.example/help'],
      ['Privacy', 'https://x.example/privacy'],
    ]);
  });

  test('Markdown links keep their text', () => {
    expect(extractLinks('Please [verify your email](https://x.example/v?a=1) today.')[0]).toMatchObject({ href: 'https://x.example/v?a=1', text: 'verify your email' });
  });

  test('a URL hard-wrapped at 76 columns is joined when the next line is clearly its continuation', () => {
    const url = 'https://accounts.example.com/verify?user=77&token=0123456789abcdef0123456789abcdef&next=home';
    const text = `Open this link:\n${url.slice(0, 76)}\n${url.slice(76)}\nThanks`;
    expect(extractLinks(text)[0]?.href).toBe(url);
  });

  test('a URL at the end of a long line is not joined with an ordinary word on the next line', () => {
    const line = 'If you asked for this, follow https://accounts.example.com/verify?token=0123456789ab';
    expect(line.length).toBeGreaterThanOrEqual(70);
    expect(extractLinks(`${line}\nThanks,\nThe team`)[0]?.href).toBe('https://accounts.example.com/verify?token=0123456789ab');
  });

  test('a short line ending in a URL is never joined with the next line', () => {
    expect(extractLinks('Go: https://x.example/a?b=1\n&c=2 is not part of it')[0]?.href).toBe('https://x.example/a?b=1');
  });

  test('a text body still in quoted-printable is decoded before reading', () => {
    const text = 'Sign in: https://x.example/login?request=3DLP-4f2a&device=3Dipho=\nne&sig=3DYk3Q\nCaf=C3=A9';
    expect(extractLinks(text)[0]?.href).toBe('https://x.example/login?request=LP-4f2a&device=iphone&sig=Yk3Q');
  });

  test('a text body with a plain "=" is not mistaken for quoted-printable', () => {
    expect(extractLinks('See https://x.example/a?b=1=\nand more')[0]?.href).toBe('https://x.example/a?b=1=');
  });

  test('a string argument is read as HTML when it has tags and as text otherwise', () => {
    expect(extractLinks('<p><a href="https://x.example/h">H</a></p>')[0]?.source).toBe('html');
    expect(extractLinks('Visit https://x.example/t now')[0]?.source).toBe('text');
  });
});

test.describe('filtering links', () => {
  const html = `<p><a href="https://app.example.com/verify?t=1">Verify your email</a>
    <a href="https://example.com/help">Help Center</a>
    <a href="https://notexample.com/x">Partner</a>
    <a href="https://cdn.example.com/unsubscribe?u=9">Unsubscribe</a></p>`;

  test('by anchor text: a string matches case-insensitively, a RegExp as given', () => {
    expect(extractLinks(html, { text: 'VERIFY' }).map((l) => l.text)).toEqual(['Verify your email']);
    expect(extractLinks(html, { text: /^help/ }).length).toBe(0);
    expect(extractLinks(html, { text: /^help/i }).map((l) => l.text)).toEqual(['Help Center']);
  });

  test('by href pattern', () => {
    expect(extractLinks(html, { href: '/unsubscribe' }).map((l) => l.text)).toEqual(['Unsubscribe']);
    expect(extractLinks(html, { href: /\?t=\d$/ }).map((l) => l.text)).toEqual(['Verify your email']);
  });

  test('by host: the host itself and its subdomains, not other domains ending the same way', () => {
    expect(extractLinks(html, { host: 'example.com' }).map((l) => l.text)).toEqual(['Verify your email', 'Help Center', 'Unsubscribe']);
    expect(extractLinks(html, { host: 'app.example.com' }).map((l) => l.text)).toEqual(['Verify your email']);
  });

  test('criteria combine, and a predicate can be added', () => {
    expect(extractLinks(html, { host: 'example.com', text: /e/i, where: (l) => !l.href.includes('help') }).map((l) => l.text)).toEqual(['Verify your email', 'Unsubscribe']);
  });

  test('a string or RegExp shorthand matches anchor text or href; a function is a predicate', () => {
    expect(extractLinks(html, 'partner').map((l) => l.href)).toEqual(['https://notexample.com/x']);
    expect(extractLinks(html, /unsubscribe\?/).map((l) => l.text)).toEqual(['Unsubscribe']);
    expect(extractLinks(html, (l) => l.text.length < 8).map((l) => l.text)).toEqual(['Partner']);
  });
});

test.describe('findLink', () => {
  const html = `<p><a href="https://app.example.com/verify?t=1">Verify your email</a>
    <a href="https://app.example.com/verify?t=1">https://app.example.com/verify?t=1</a>
    <a href="https://example.com/help">Help Center</a> <a href="https://example.com/privacy">Privacy</a></p>`;

  test('returns the one matching link, counting merged duplicates once', () => {
    expect(findLink(html, { text: 'verify' }).href).toBe('https://app.example.com/verify?t=1');
  });

  test('when nothing matches, the error lists every link of the message as text → href', () => {
    const error = (() => { try { findLink(html, { text: 'reset' }); } catch (e) { return e; } return null; })();
    expect(error).toBeInstanceOf(LinkNotFoundError);
    expect(error).toBeInstanceOf(ExtractionError);
    expect(error).toBeInstanceOf(InboxkitError);
    const message = (error as LinkNotFoundError).message;
    expect(message).toContain('No link matched the filter (text contains "reset")');
    expect(message).toContain('"Verify your email" → https://app.example.com/verify?t=1');
    expect(message).toContain('"Help Center" → https://example.com/help');
    expect(message).toContain('"Privacy" → https://example.com/privacy');
    expect((error as LinkNotFoundError).links).toHaveLength(3);
  });

  test('when several different links match, the error lists the matches and asks for a narrower filter', () => {
    const error = (() => { try { findLink(html, { host: 'example.com' }); } catch (e) { return e; } return null; })();
    expect(error).toBeInstanceOf(AmbiguousLinkError);
    expect((error as Error).message).toMatch(/^3 different links matched the filter \(host is "example\.com" or a subdomain of it\)/);
    expect((error as Error).message).toContain('"Privacy" → https://example.com/privacy');
    expect((error as Error).message).toContain('Narrow the filter');
  });

  test('a message without any link says so', () => {
    expect(() => findLink({ html: '<p>Hi</p>', text: 'Hi' }, 'x')).toThrow(/no links at all \(an HTML body, a text body\)/);
  });
});

test.describe('tracking redirects', () => {
  const one = (href: string, options: { unwrapTracking?: boolean } = {}) => extractLinks(`<a href="${href.replace(/&/g, '&amp;')}">Go</a>`, options)[0];

  test('Outlook SafeLinks is unwrapped and the original is kept in originalHref', () => {
    const wrapped = 'https://eur01.safelinks.protection.outlook.com/?url=https%3A%2F%2Fapp.example.com%2Fverify%3Ft%3D1%26u%3D2&data=05%7C02&sdata=x&reserved=0';
    expect(one(wrapped)).toMatchObject({ href: 'https://app.example.com/verify?t=1&u=2', originalHref: wrapped, unwrapped: ['safelinks'] });
  });

  test('Google /url?q= is unwrapped', () => {
    expect(one('https://www.google.com/url?q=https://x.example/a?b%3D1&sa=D&usg=AOv')?.href).toBe('https://x.example/a?b=1');
  });

  test('a generic tracker carrying the target in ?url=, ?u=, ?redirect=, ?target= or ?dest= is unwrapped', () => {
    for (const key of ['url', 'u', 'redirect', 'target', 'dest']) {
      expect(one(`https://click.mailer.example/c?${key}=https%3A%2F%2Fx.example%2Fok&id=5&sig=ab12`)?.href, key).toBe('https://x.example/ok');
    }
  });

  test('a base64-encoded target is unwrapped', () => {
    const b64 = Buffer.from('https://x.example/confirm?c=9').toString('base64url');
    expect(one(`https://t.mailer.example/r?u=${b64}&id=7`)?.href).toBe('https://x.example/confirm?c=9');
  });

  test('nested wrappers are all removed, outermost first in unwrapped', () => {
    const inner = `https://click.mailer.example/c?url=${encodeURIComponent('https://x.example/final?a=1')}&mid=3`;
    const outer = `https://nam12.safelinks.protection.outlook.com/?url=${encodeURIComponent(inner)}&data=1`;
    expect(one(outer)).toMatchObject({ href: 'https://x.example/final?a=1', unwrapped: ['safelinks', 'redirect(url)'] });
  });

  test('Proofpoint URL Defense v2 and v3 are unwrapped', () => {
    expect(one('https://urldefense.proofpoint.com/v2/url?u=https-3A__x.example_a-2Db-3Fc-3D1&d=DwM&c=a&r=b&m=c&s=d&e=')?.href).toBe('https://x.example/a-b?c=1');
    expect(one('https://urldefense.com/v3/__https://x.example/path?q=1__;!!AbC!dEf$')?.href).toBe('https://x.example/path?q=1');
  });

  test('Amazon SES awstrack.me links are unwrapped', () => {
    expect(one('https://abc.r.eu-west-1.awstrack.me/L0/https:%2F%2Fx.example%2Fv%3Fk=1/1/0102-abc/xyz=1')?.href).toBe('https://x.example/v?k=1');
  });

  test('SendGrid and Mailchimp click links are kept, because their target cannot be known without fetching', () => {
    const sendgrid = 'https://u123.ct.sendgrid.net/ls/click?upn=u001.abc-2Bdef';
    const mailchimp = 'https://acme.us21.list-manage.com/track/click?u=abc&id=def&e=123';
    expect(one(sendgrid)).toMatchObject({ href: sendgrid, unwrapped: [] });
    expect(one(mailchimp)).toMatchObject({ href: mailchimp, unwrapped: [] });
  });

  test('a magic link whose redirect parameter says where to go after signing in is NOT unwrapped', () => {
    const magic = 'https://auth.example.com/auth/v1/verify?token=abc&type=magiclink&redirect_to=https://app.example.com/home';
    const login = 'https://app.example.com/session?token=abc&redirect=https%3A%2F%2Fapp.example.com%2Fhome';
    expect(one(magic)?.href).toBe(magic);
    expect(one(login)?.href).toBe(login);
  });

  test('unwrapTracking: false keeps every href as written', () => {
    const wrapped = 'https://nam12.safelinks.protection.outlook.com/?url=https%3A%2F%2Fx.example%2F&data=1';
    expect(one(wrapped, { unwrapTracking: false })).toMatchObject({ href: wrapped, unwrapped: [] });
  });

  test('filters apply to the unwrapped href', () => {
    const html = '<a href="https://nam12.safelinks.protection.outlook.com/?url=https%3A%2F%2Fapp.example.com%2Fverify&amp;data=1">Verify</a>';
    expect(findLink(html, { host: 'app.example.com' }).href).toBe('https://app.example.com/verify');
  });
});
