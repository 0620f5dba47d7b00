/**
 * The page's frame: the live status, the screen-reader announcer, the theme
 * and the three panes.
 *
 * @packageDocumentation
 */
import { h, replace } from './dom.ts';

export const app = document.getElementById('app')!;
export const liveStatus = document.getElementById('live-status')!;
export const announcer = document.getElementById('announcer')!;

export function announce(text: string): void {
  announcer.textContent = '';
  // A fresh text node, so screen readers announce a repeated message again.
  setTimeout(() => (announcer.textContent = text), 30);
}

// ---- theme ----
const THEMES = ['system', 'light', 'dark'] as const;
type Theme = (typeof THEMES)[number];
function applyTheme(theme: Theme): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  const button = document.getElementById('theme-toggle');
  if (button) button.textContent = `Theme: ${theme}`;
}
/** Applies the remembered theme and cycles it with the theme button. */
export function setUpTheme(): void {
  let theme: Theme = 'system';
  try {
    const stored = localStorage.getItem('inboxkit-viewer-theme');
    if (stored && (THEMES as readonly string[]).includes(stored)) theme = stored as Theme;
  } catch {}
  applyTheme(theme);
  document.getElementById('theme-toggle')?.addEventListener('click', () => {
    theme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length]!;
    applyTheme(theme);
    try {
      localStorage.setItem('inboxkit-viewer-theme', theme);
    } catch {}
  });
}

// ---- layout ----
export function layout(): { inboxPane: HTMLElement; listPane: HTMLElement; messagePane: HTMLElement } {
  let inboxPane = document.getElementById('inbox-pane');
  let listPane = document.getElementById('list-pane');
  let messagePane = document.getElementById('message-pane');
  if (!inboxPane || !listPane || !messagePane) {
    inboxPane = h('nav', { id: 'inbox-pane', class: 'col', 'aria-labelledby': 'inboxes-heading' });
    listPane = h('section', { id: 'list-pane', class: 'col', 'aria-labelledby': 'messages-heading' });
    messagePane = h('main', { id: 'message-pane', class: 'col', 'aria-labelledby': 'message-heading' });
    replace(app, h('div', { class: 'layout' }, inboxPane, listPane, messagePane));
  }
  return { inboxPane, listPane, messagePane };
}

/** `1 message`, `3 messages`. */
export function plural(count: number, noun: string): string {
  return `${count.toLocaleString('en')} ${noun}${count === 1 ? '' : 's'}`;
}

export function setLive(live: boolean): void {
  liveStatus.textContent = live ? 'Live' : 'Reconnecting…';
  liveStatus.className = live ? 'live on' : 'live off';
}
