/**
 * The message pane: headers, the sanitized HTML in a sandboxed frame, its
 * renders side by side (light, dark, forced dark; width presets), text,
 * all headers, raw source, attachments, and what inboxkit's extraction sees.
 *
 * @packageDocumentation
 */
import { extractLinks, extractOtp, extractOtps } from '../extract/index.ts';
import type { Message } from '../wire/schemas.ts';
import type { Api } from './api.ts';
import { formatAddress, formatAddresses, formatBytes, h, replace, time } from './dom.ts';
import { rendersPanel, withoutRemoteImages } from './render-views.ts';
import { checksPanel } from './checks-panel.ts';
import { smsHeading, smsInfo, smsMetaRows, smsPanel } from './sms-view.ts';
import { emailVia } from './via.ts';

/** What the message pane needs from the app. */
export interface MessageViewContext {
  api: Api;
  /** Deletes the message through the API and updates the list. */
  deleteMessage(id: string): Promise<void>;
  /** Reports a failure to the user. */
  announce(text: string): void;
}

/** View preferences that last while the viewer is open. */
const prefs = { remoteImages: false, width: 'desktop' as 'desktop' | 'mobile', tab: 'html' };

/** Raster image types a thumbnail is shown for. */
const THUMBNAIL = /^image\/(?:png|jpeg|gif|webp|bmp|avif)$/i;

/**
 * The document shown in the frame. Its own Content-Security-Policy allows no
 * script and no request but `data:` images (and remote images when asked), on
 * top of the frame's sandbox (no scripts, an opaque origin).
 */
export function frameDocument(html: string, remoteImages: boolean): string {
  return [
    '<!doctype html><html><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${framePolicy(remoteImages)}">`,
    '<meta name="referrer" content="no-referrer">',
    '<base target="_blank">',
    '<style>html{background:#fff;color:#000}body{margin:12px;font:14px/1.45 system-ui,sans-serif;overflow-wrap:anywhere}</style>',
    `</head><body>${html}</body></html>`,
  ].join('');
}

/** The frame's Content-Security-Policy: no script, no request but `data:` images (and remote images when asked). */
function framePolicy(remoteImages: boolean): string {
  return `default-src 'none'; img-src ${remoteImages ? 'data: http: https:' : 'data:'}; style-src 'unsafe-inline'; font-src data:`;
}

/** Shows `html` in the frame: the policy set on the frame itself too (enforced from the start), remote images set aside unless asked for. */
function showInFrame(frame: HTMLIFrameElement, html: string, remoteImages: boolean): void {
  frame.setAttribute('csp', framePolicy(remoteImages));
  frame.srcdoc = frameDocument(remoteImages ? html : withoutRemoteImages(html), remoteImages);
}

function metaRow(name: string, value: Node | string): HTMLElement[] {
  return [h('dt', {}, name), h('dd', {}, value)];
}

function tabs(message: Message, panels: Array<{ id: string; label: string; render: () => Node | Promise<Node> }>): HTMLElement {
  const wrapper = h('div', { class: 'tabs' });
  const list = h('div', { role: 'tablist', 'aria-label': 'Message views' });
  const panel = h('div', { role: 'tabpanel', id: `panel-${message.id}`, tabindex: '0', class: 'panel' });
  const buttons = new Map<string, HTMLButtonElement>();
  let current = panels.some((p) => p.id === prefs.tab) ? prefs.tab : panels[0]!.id;
  let generation = 0;
  const select = async (id: string, focus = false) => {
    current = id;
    prefs.tab = id;
    for (const [key, button] of buttons) {
      button.setAttribute('aria-selected', String(key === id));
      button.tabIndex = key === id ? 0 : -1;
    }
    const button = buttons.get(id)!;
    if (focus) button.focus();
    panel.setAttribute('aria-labelledby', button.id);
    const mine = ++generation;
    replace(panel, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const content = await panels.find((p) => p.id === id)!.render();
      if (mine === generation) replace(panel, content);
    } catch (error) {
      if (mine === generation) replace(panel, h('p', { role: 'alert' }, `Could not load this view: ${(error as Error).message}`));
    }
  };
  for (const p of panels) {
    const button = h(
      'button',
      {
        type: 'button',
        role: 'tab',
        id: `tab-${p.id}-${message.id}`,
        'aria-controls': panel.id,
        onclick: () => void select(p.id),
        onkeydown: (event: Event) => {
          const key = (event as KeyboardEvent).key;
          const index = panels.findIndex((x) => x.id === current);
          const next = key === 'ArrowRight' ? index + 1 : key === 'ArrowLeft' ? index - 1 : key === 'Home' ? 0 : key === 'End' ? panels.length - 1 : null;
          if (next === null) return;
          event.preventDefault();
          void select(panels[(next + panels.length) % panels.length]!.id, true);
        },
      },
      p.label,
    );
    buttons.set(p.id, button);
    list.append(button);
  }
  wrapper.append(list, panel);
  void select(current);
  return wrapper;
}

function htmlPanel(message: Message): Node {
  if (message.html === null) return h('p', { class: 'muted' }, 'This message has no HTML body; see its text.');
  const frame = h('iframe', {
    title: 'Message body (sanitized HTML)',
    sandbox: 'allow-popups allow-popups-to-escape-sandbox',
    referrerpolicy: 'no-referrer',
    class: `body-frame ${prefs.width}`,
  });
  showInFrame(frame, message.html, prefs.remoteImages);
  const remote = h('input', { type: 'checkbox', id: `remote-${message.id}`, checked: prefs.remoteImages });
  remote.addEventListener('change', () => {
    prefs.remoteImages = remote.checked;
    showInFrame(frame, message.html ?? '', prefs.remoteImages);
  });
  const widthButton = (width: 'desktop' | 'mobile', label: string) => {
    const button = h('button', { type: 'button', 'aria-pressed': String(prefs.width === width) }, label);
    button.addEventListener('click', () => {
      prefs.width = width;
      frame.className = `body-frame ${width}`;
      for (const b of group.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b === button));
    });
    return button;
  };
  const group = h('div', { role: 'group', 'aria-label': 'Rendering width' });
  group.append(widthButton('desktop', 'Desktop'), widthButton('mobile', 'Mobile'));
  return h(
    'div',
    {},
    h('div', { class: 'toolbar' }, h('label', { class: 'check' }, remote, ' Load remote images'), group),
    h('div', { class: 'frame-box' }, frame),
  );
}

function textPanel(message: Message): Node {
  if (message.text === null) return h('p', { class: 'muted' }, 'This message has no text body.');
  return h('pre', { class: 'source', 'aria-label': 'Text body' }, message.text);
}

function headersPanel(message: Message): Node {
  const rows = Object.entries(message.headers).map(([name, value]) => h('tr', {}, h('th', { scope: 'row' }, name), h('td', {}, value)));
  return h('table', { class: 'grid' }, h('caption', {}, 'Headers as received'), h('tbody', {}, ...rows));
}

/** Raw sources over this size are shown cut (the whole file downloads). */
const RAW_SHOWN = 512 * 1024;

async function rawPanel(message: Message, ctx: MessageViewContext): Promise<Node> {
  const raw = await ctx.api.raw(message.id);
  const cut = raw.length > RAW_SHOWN;
  return h(
    'div',
    {},
    cut ? h('p', { class: 'muted' }, `The first ${formatBytes(RAW_SHOWN)} of ${formatBytes(raw.length)}.`) : null,
    h('pre', { class: 'source', 'aria-label': 'Raw source' }, cut ? raw.slice(0, RAW_SHOWN) : raw),
  );
}

async function download(ctx: MessageViewContext, message: Message, attachment: Message['attachments'][number]): Promise<void> {
  try {
    const blob = await ctx.api.attachment(message.id, attachment.id);
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: attachment.filename || 'attachment', hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (error) {
    ctx.announce(`Could not download ${attachment.filename}: ${(error as Error).message}`);
  }
}

function attachmentsPanel(message: Message, ctx: MessageViewContext): Node {
  if (message.attachments.length === 0) return h('p', { class: 'muted' }, 'No attachments.');
  const items = message.attachments.map((attachment) => {
    const thumb = THUMBNAIL.test(attachment.contentType) ? h('img', { class: 'thumb', alt: `Preview of ${attachment.filename}`, width: 96, height: 96 }) : null;
    if (thumb) {
      ctx.api.attachment(message.id, attachment.id).then(
        (blob) => (thumb.src = URL.createObjectURL(blob)),
        () => thumb.remove(),
      );
    }
    return h(
      'li',
      { class: 'attachment' },
      thumb,
      h(
        'div',
        {},
        h('strong', {}, attachment.filename || '(unnamed)'),
        h('span', { class: 'muted' }, ` ${attachment.contentType}, ${formatBytes(attachment.size)}${attachment.inline ? ', inline' : ''}`),
        h('br'),
        h('button', { type: 'button', onclick: () => void download(ctx, message, attachment) }, `Download ${attachment.filename || 'attachment'}`),
      ),
    );
  });
  return h('ul', { class: 'attachments', 'aria-label': 'Attachments' }, ...items);
}

function extractionPanel(message: Message): Node {
  const input = { html: message.html, text: message.text, subject: message.subject };
  const candidates = extractOtps(input);
  // What was ruled out is listed whether or not a code was found (message.otps().rejected).
  const rejected = candidates.rejected;
  let verdict: Node;
  try {
    const code = extractOtp(input);
    verdict = h('p', {}, 'message.otp() returns ', h('code', { class: 'otp' }, code), '.');
  } catch (error) {
    verdict = h('p', {}, 'message.otp() finds no code: ', (error as Error).message.split('\n')[0] ?? '');
  }
  const candidateRows = candidates.map((c, i) =>
    h('tr', {}, h('td', {}, i === 0 ? h('strong', {}, c.code) : c.code), h('td', {}, c.raw), h('td', {}, String(c.score)), h('td', {}, c.reasons.join('; ')), h('td', {}, c.source)),
  );
  const links = extractLinks(input);
  const linkRows = links.map((link) =>
    h(
      'tr',
      {},
      h('td', {}, link.text || '(no text)'),
      h('td', {}, h('code', {}, link.href)),
      h('td', {}, link.unwrapped.length > 0 ? [`unwrapped ${link.unwrapped.join(' → ')} from `, link.originalHref].join('') : link.originalHref === link.href ? '' : link.originalHref),
      h('td', {}, link.source),
    ),
  );
  return h(
    'div',
    { class: 'extraction' },
    h('h3', {}, 'One-time code'),
    verdict,
    candidates.length > 0
      ? h(
          'table',
          { class: 'grid' },
          h('caption', {}, 'Candidates, most likely first (message.otps())'),
          h('thead', {}, h('tr', {}, ...['Code', 'As written', 'Score', 'Reasons', 'Found in'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, ...candidateRows),
        )
      : h('p', { class: 'muted' }, 'No candidate codes.'),
    rejected.length > 0
      ? h('details', {}, h('summary', {}, `${rejected.length} ruled out (message.otps().rejected)`), h('ul', {}, ...rejected.map((r) => h('li', {}, `${r.raw}: ${r.reason} (${r.source})`))))
      : null,
    h('h3', {}, 'Links'),
    links.length > 0
      ? h(
          'table',
          { class: 'grid' },
          h('caption', {}, 'message.links(): the targets a test follows'),
          h('thead', {}, h('tr', {}, ...['Text', 'Target', 'As written', 'Found in'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, ...linkRows),
        )
      : h('p', { class: 'muted' }, 'No links.'),
  );
}

/** Renders a whole message into the pane. */
export function renderMessage(pane: HTMLElement, message: Message, ctx: MessageViewContext): void {
  const deleteButton = h('button', { type: 'button', class: 'danger' }, 'Delete message');
  deleteButton.addEventListener('click', () => {
    deleteButton.disabled = true;
    ctx.deleteMessage(message.id).finally(() => (deleteButton.disabled = false));
  });
  const sms = smsInfo(message);
  if (sms) {
    // An SMS: its text as the phone shows it, how it came, and what extraction sees; nothing of email.
    replace(
      pane,
      h('div', { class: 'pane-head' }, h('h2', { id: 'message-heading' }, smsHeading(message)), h('div', { class: 'toolbar' }, deleteButton)),
      h('dl', { class: 'meta' }, ...smsMetaRows(message, sms).flatMap(([name, value]) => metaRow(name, value)), ...metaRow('Received', time(message.receivedAt))),
      tabs(message, [
        { id: 'sms', label: 'SMS', render: () => smsPanel(message) },
        { id: 'extraction', label: 'Extraction', render: () => extractionPanel(message) },
        { id: 'headers', label: 'Headers', render: () => headersPanel(message) },
        { id: 'raw', label: 'Raw', render: () => rawPanel(message, ctx) },
      ]),
    );
    return;
  }
  const meta = h(
    'dl',
    { class: 'meta' },
    ...metaRow('From', formatAddress(message.from)),
    ...metaRow('To', formatAddresses(message.to) || '(none)'),
    ...(message.cc.length > 0 ? metaRow('Cc', formatAddresses(message.cc)) : []),
    ...(message.replyTo.length > 0 ? metaRow('Reply-To', formatAddresses(message.replyTo)) : []),
    ...metaRow('Received', time(message.receivedAt)),
    ...metaRow('Via', emailVia(message)),
    ...metaRow('Size', formatBytes(message.size)),
  );
  replace(
    pane,
    h('div', { class: 'pane-head' }, h('h2', { id: 'message-heading' }, message.subject || '(no subject)'), h('div', { class: 'toolbar' }, deleteButton)),
    meta,
    tabs(message, [
      { id: 'html', label: 'HTML', render: () => htmlPanel(message) },
      { id: 'renders', label: 'Renders', render: () => rendersPanel(message.html, (frame, html) => showInFrame(frame, html, false)) },
      { id: 'text', label: 'Text', render: () => textPanel(message) },
      { id: 'headers', label: 'Headers', render: () => headersPanel(message) },
      { id: 'raw', label: 'Raw', render: () => rawPanel(message, ctx) },
      { id: 'attachments', label: `Attachments (${message.attachments.length})`, render: () => attachmentsPanel(message, ctx) },
      { id: 'extraction', label: 'Extraction', render: () => extractionPanel(message) },
      { id: 'checks', label: 'Checks', render: () => checksPanel(message, ctx.api) },
    ]),
  );
}
