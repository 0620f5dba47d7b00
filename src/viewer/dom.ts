/**
 * DOM helpers of the viewer. Text goes in through `textContent` only: nothing
 * from a message is ever parsed as HTML in the viewer's own document (the
 * sanitized HTML body goes into a sandboxed frame).
 *
 * @packageDocumentation
 */

/** Attributes of {@link h}: strings become attributes, functions `on…` become listeners, `false`/`null` are left out. */
export type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

/** A child of {@link h}: nodes, or strings as text. */
export type Child = Node | string | null | undefined | false;

/**
 * Creates an element.
 *
 * @example
 * ```ts
 * h('button', { type: 'button', onclick: () => save() }, 'Save');
 * ```
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value as EventListener);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, ...children);
  return el;
}

/**
 * A column of {@link grid}: its name, and how its cells wrap when the table is
 * narrower than its text.
 */
export interface GridColumn {
  /** The column's header. */
  name: string;
  /**
   * `id`: never broken (a rule id, a name to read, search and copy whole: the
   * column is as wide as its longest); `text`: long text that may break inside
   * a word too long for the column (a URL, a piece of markup), so the columns
   * beside it keep their width.
   * @defaultValue between words only
   */
  wrap?: 'id' | 'text';
}

/**
 * A table of the viewer's `grid` style: a caption, a header row of column
 * names, and one row per entry (cells as text or nodes).
 *
 * @example
 * ```ts
 * grid('SPF, DMARC, ARC', ['Check', 'Result'], [['SPF', 'pass']]);
 * grid('Content rules', [{ name: 'Rule', wrap: 'id' }, { name: 'Finding', wrap: 'text' }], [[h('code', {}, 'img-alt'), 'An image …']]);
 * ```
 */
export function grid(caption: string, columns: Array<string | GridColumn>, rows: Array<Array<string | Node>>): HTMLTableElement {
  const spec = columns.map((c) => (typeof c === 'string' ? { name: c } : c));
  const wrapClass = (i: number) => (spec[i]?.wrap ? `wrap-${spec[i].wrap}` : null);
  return h(
    'table',
    { class: 'grid' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, ...spec.map((c) => h('th', { scope: 'col' }, c.name)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((cell, i) => h('td', { class: wrapClass(i) }, cell))))),
  );
}

/** Appends children (strings as text nodes). */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** `Name <address>`, or the address alone. */
export function formatAddress(address: { address: string; name: string } | null | undefined): string {
  if (!address) return '(no sender)';
  return address.name ? `${address.name} <${address.address}>` : address.address;
}

/** A list of addresses, comma-separated. */
export function formatAddresses(list: Array<{ address: string; name: string }>): string {
  return list.map(formatAddress).join(', ');
}

/** A byte count for people: `512 B`, `12.3 KB`, `4.0 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A `<time>` showing a local date and time, with the ISO value as its `datetime`. */
export function time(iso: string, options: { short?: boolean } = {}): HTMLTimeElement {
  const date = new Date(iso);
  const sameDay = date.toDateString() === new Date().toDateString();
  const text =
    options.short && sameDay
      ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
      : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  return h('time', { datetime: iso, title: date.toISOString() }, text);
}

/** How long until a time, roughly: `in 23 h`, `in 5 min`, `now`. */
export function fromNow(iso: string): string {
  const ms = new Date(iso).getTime() - Date.now();
  if (ms <= 0) return 'now';
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `in ${hours} h`;
  return `in ${Math.round(hours / 24)} days`;
}

/**
 * An email address that wraps between its parts, never inside a word: a line
 * break may come after `@`, `-`, `+` and `_` and before `.` (a `<wbr>` each),
 * so `signs-up-w1-k3j9x@inboxkit.example.com` wraps as `signs-up-w1-` / `k3j9x@` /
 * `inboxkit.example.com` rather than being cut or ellipsized mid-word.
 *
 * @param address - The address, shown as text.
 */
export function addressText(address: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  for (const [index, part] of address.split(/(?<=[@+_-])|(?=\.)/).entries()) {
    if (index > 0) fragment.appendChild(document.createElement('wbr'));
    fragment.appendChild(document.createTextNode(part));
  }
  return fragment;
}
