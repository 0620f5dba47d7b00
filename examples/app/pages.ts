/**
 * Server-rendered pages of the example app: plain forms whose fields have
 * `<label for>` labels and whose submit buttons have clear names, so Playwright's
 * `getByLabel` and `getByRole` find them.
 */
import { escapeHtml } from './html.ts';

/** A page to render. */
export interface PageParts {
  /** `<title>` and `<h1>`. */
  title: string;
  /** Main content (HTML) after the heading. */
  body: string;
  /** Whether someone is signed in (changes the navigation). */
  signedIn?: boolean;
  /** A success message shown in a `role="status"` box. */
  notice?: string;
  /** An error shown in a `role="alert"` box. */
  error?: string;
}

const STYLE = `
  body { font-family: system-ui, sans-serif; margin: 0; color: #1f2937; background: #f4f5f7; }
  header { background: #4f46e5; color: #fff; padding: 12px 24px; display: flex; gap: 16px; align-items: center; }
  header a, header button { color: #fff; font: inherit; }
  header button { background: none; border: 1px solid #fff; border-radius: 4px; cursor: pointer; }
  header .brand { font-weight: bold; margin-right: auto; text-decoration: none; }
  main { max-width: 480px; margin: 32px auto; background: #fff; padding: 24px 32px; border-radius: 8px; }
  label { display: block; margin: 16px 0 4px; font-weight: 600; }
  input { width: 100%; box-sizing: border-box; padding: 8px; font: inherit; }
  main form button { margin-top: 16px; padding: 8px 16px; font: inherit; background: #4f46e5; color: #fff; border: 0; border-radius: 4px; cursor: pointer; }
  .notice { background: #ecfdf5; border: 1px solid #10b981; padding: 8px 12px; border-radius: 4px; }
  .error { background: #fef2f2; border: 1px solid #ef4444; padding: 8px 12px; border-radius: 4px; }
`;

/** Renders a full HTML page. */
export function page(parts: PageParts): string {
  const nav = parts.signedIn
    ? `<a href="/dashboard">Dashboard</a> <a href="/billing">Billing</a> <form method="post" action="/signout" style="display:inline"><button type="submit">Sign out</button></form>`
    : `<a href="/signup">Sign up</a> <a href="/signin">Sign in</a> <a href="/login">Email me a code</a> <a href="/newsletter">Newsletter</a>`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(parts.title)} · Acme</title>
<style>${STYLE}</style>
</head>
<body>
<header><a class="brand" href="/">Acme</a> <nav aria-label="Account">${nav}</nav></header>
<main>
<h1>${escapeHtml(parts.title)}</h1>
${parts.notice ? `<p class="notice" role="status">${escapeHtml(parts.notice)}</p>` : ''}
${parts.error ? `<p class="error" role="alert">${escapeHtml(parts.error)}</p>` : ''}
${parts.body}
</main>
</body>
</html>
`;
}

/** A form field: a label tied to its input by id. */
export interface Field {
  /** Input name (and id). */
  name: string;
  /** Visible label. */
  label: string;
  /** Input type. */
  type: 'email' | 'password' | 'text' | 'hidden' | 'tel';
  /** Prefilled value. */
  value?: string;
  /** Extra attributes, e.g. `autocomplete="one-time-code"`. */
  attributes?: string;
}

/** Renders a POST form with labelled fields and one submit button. */
export function form(action: string, fields: readonly Field[], submitLabel: string): string {
  const inputs = fields
    .map((f) => {
      const value = f.value === undefined ? '' : ` value="${escapeHtml(f.value)}"`;
      if (f.type === 'hidden') return `<input type="hidden" name="${f.name}"${value}>`;
      return `<label for="${f.name}">${escapeHtml(f.label)}</label>\n<input id="${f.name}" name="${f.name}" type="${f.type}"${value} required ${f.attributes ?? ''}>`;
    })
    .join('\n');
  return `<form method="post" action="${escapeHtml(action)}">\n${inputs}\n<button type="submit">${escapeHtml(submitLabel)}</button>\n</form>`;
}

/** A paragraph of escaped text. */
export function p(text: string): string {
  return `<p>${escapeHtml(text)}</p>`;
}

/** A link with escaped text and target. */
export function a(href: string, text: string): string {
  return `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
}
