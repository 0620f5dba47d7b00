/**
 * Client profiles in the Renders tab: the message as Gmail, Outlook and Apple
 * Mail would show it, approximately, side by side, each with what the profile
 * removed (the code of `toHaveScreenshot({ client })`, over the caniemail
 * data loaded on first use from `email-clients.js`).
 *
 * @packageDocumentation
 */
import { h, replace } from './dom.ts';
import { VIEWER_CLIENTS, loadEmailClients } from './lazy.ts';

type Show = (frame: HTMLIFrameElement, html: string) => void;

function removedList(removed: Array<{ slug: string; feature: string; url: string; removed: string; count: number }>): Node {
  if (removed.length === 0) return h('p', { class: 'muted' }, 'Nothing removed.');
  return h(
    'ul',
    { class: 'removed', 'aria-label': 'Removed' },
    ...removed.map((r) => h('li', {}, `${r.removed} ×${r.count} `, h('a', { href: r.url, target: '_blank', rel: 'noopener noreferrer' }, `(${r.slug})`))),
  );
}

async function showProfiles(html: string, show: Show, out: HTMLElement): Promise<void> {
  replace(out, h('p', { class: 'muted' }, 'Loading the caniemail data…'));
  const { profile } = await loadEmailClients();
  const results = await Promise.all(VIEWER_CLIENTS.map((client) => profile(html, client)));
  const figures = results.map((result) => {
    const frame = h('iframe', {
      title: `Message body, as ${result.name}`,
      sandbox: 'allow-popups allow-popups-to-escape-sandbox',
      referrerpolicy: 'no-referrer',
      class: 'render-frame profile-frame',
    });
    show(frame, result.html);
    return h('figure', { class: 'render profile', 'data-client': result.client }, h('figcaption', {}, result.name), frame, h('h4', {}, `Removed for ${result.name}`), removedList(result.removed));
  });
  const updated = results[0]?.dataUpdated ?? '';
  replace(
    out,
    h('p', { class: 'muted' }, `Approximations from the caniemail data${updated ? ` (updated ${updated})` : ''}: what each client is documented not to support is removed; its own stylesheet and quirks are not reproduced.`),
    h('div', { class: 'renders' }, ...figures),
  );
}

/** The client profiles section: a button that loads the data and shows the profiles side by side. */
export function clientProfilesSection(html: string, show: Show): Node {
  const out = h('div', { class: 'profiles', 'aria-live': 'polite' });
  const button = h('button', { type: 'button' }, 'Show client profiles');
  button.addEventListener('click', () => {
    button.disabled = true;
    showProfiles(html, show, out)
      .catch((error: unknown) => replace(out, h('p', { role: 'alert' }, `Could not apply the client profiles: ${(error as Error).message}`)))
      .finally(() => (button.disabled = false));
  });
  return h('section', { 'aria-label': 'Client profiles' }, h('h3', {}, 'Client profiles'), h('p', {}, button, ` ${VIEWER_CLIENTS.join(', ')} side by side (loads the caniemail data, about 1 MB, once).`), out);
}
