import fc from 'fast-check';

/**
 * Pieces of hostile and ordinary markup: the parser states that matter for
 * mutation XSS (foreign content, raw text, tables, forms, comments, CDATA,
 * templates, misnested formatting) and the URLs and handlers the policy is about.
 */
const PIECES = [
  '<p>', '</p>', '<div>', '</div>', '<span>', '</span>', '<b>', '</b>', '<i>', '</i>', '<a href="https://x.test/?a=1&b=2">', '<a href="javascript:alert(1)">', '</a>',
  '<img src=x onerror=alert(1)>', '<img src="cid:logo">', '<img src="data:image/png;base64,AA==">', '<img src="data:image/svg+xml,<svg onload=alert(1)>">',
  '<svg>', '</svg>', '<math>', '</math>', '<mtext>', '<mglyph>', '<malignmark>', '<annotation-xml encoding="text/html">', '<foreignObject>', '<desc>', '<title>', '</title>',
  '<table>', '</table>', '<tr>', '<td>', '</td>', '<caption>', '<colgroup>', '<col>', '<tbody>',
  '<style>', '</style>', '<script>', '</script>', '<noscript>', '</noscript>', '<textarea>', '</textarea>', '<xmp>', '</xmp>', '<iframe>', '</iframe>', '<noembed>', '<noframes>',
  '<template>', '</template>', '<form>', '</form>', '<button>', '</button>', '<select>', '<option>', '<input>', '<object>', '</object>', '<marquee>', '<details open ontoggle=alert(1)>',
  '<pre>', '</pre>', '\n', '<!--', '-->', '--!>', '<![CDATA[', ']]>', '<?xml ?>', '<!DOCTYPE html>', '<html>', '<body bgcolor="#eee" style="color:red">', '<head>', '<base href="https://evil.test/">',
  '"', "'", '>', '<', '/', '=', '&lt;', '&amp;', '&nbsp;', '&#0;', '\u0000', 'x', ' ', 'alert(1)',
  ' style="background:url(javascript:1)"', ' style="color:red;background:url(cid:bg)"', ' onclick="alert(1)"', ' href="jav&#x09;ascript:alert(1)"', ' id="x"', ' name="cookie"', ' aria-label="y"',
  '<style>a{color:red}</style>', '<style>p{background:url("</style><img src=x onerror=alert(1)>")}</style>', '<style>@import url(x);</style>',
];

/** Token soup: any sequence of the pieces above, up to 40 of them. */
export const tokenSoup = fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }).map((parts) => parts.join(''));

const TAGS = ['p', 'div', 'span', 'a', 'b', 'table', 'tr', 'td', 'svg', 'math', 'mtext', 'style', 'noscript', 'form', 'button', 'select', 'template', 'pre', 'li', 'x-unknown', 'o:p', 'font', 'center', 'h1', 'object', 'textarea'];
const ATTRIBUTES = ['href="https://x.test/"', 'href="javascript:alert(1)"', 'src="https://x.test/a.png"', 'src=x', 'onerror="alert(1)"', 'style="color:red"', 'style="width:expression(alert(1))"', 'class="c"', 'id="i"', 'bgcolor="#fff"', 'background="cid:bg"'];

/** Nested markup: elements (known, unknown, foreign, raw-text) with attributes around text and each other. */
export const nestedMarkup: fc.Arbitrary<string> = fc.letrec<{ node: string; element: string }>((tie) => ({
  node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constantFrom('x', ' ', '&lt;', '<!-- c -->', '\n'), tie('element')),
  element: fc
    .tuple(fc.constantFrom(...TAGS), fc.array(fc.constantFrom(...ATTRIBUTES), { maxLength: 3 }), fc.array(tie('node'), { maxLength: 4 }), fc.boolean())
    .map(([tag, attributes, children, closed]) => `<${tag}${attributes.map((a) => ` ${a}`).join('')}>${children.join('')}${closed ? `</${tag}>` : ''}`),
})).element;

/** Both kinds of generated HTML. */
export const generatedHtml = fc.oneof(tokenSoup, nestedMarkup);
