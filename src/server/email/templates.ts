/**
 * Templates registered with the service, rendered as the providers render
 * theirs. A test (or an operator) registers a template for a provider and
 * an id with `PUT /email/templates/{provider}/{id}`; a send by that id is then
 * rendered with the send's data (Handlebars, which SendGrid's dynamic
 * templates, Mailgun's and SES's `{{ }}` use, and whose `{{var}}`,
 * `{{#if}}` and `{{#each}}` Postmark's Mustachio shares), so `link()` and
 * `otp()` work on a template-sent mail. Templates belong to the caller that
 * registered them (a key's sends find its templates; local callers share
 * theirs) and live in the store, bounded, so every node of a team service
 * renders them. Handlebars is an optional peer
 * dependency, loaded on the first template (few tests send by template).
 *
 * @packageDocumentation
 */
import type HandlebarsModule from 'handlebars';

type Handlebars = typeof HandlebarsModule;

/** A template's parts: each is a Handlebars source. */
export interface EmailTemplate {
  subject: string;
  html: string | null;
  text: string | null;
}

/** A template rendered with a send's data. */
export interface RenderedTemplate {
  subject: string;
  html: string | undefined;
  text: string | undefined;
}

/** Templates one caller keeps. */
export const MAX_TEMPLATES_PER_CALLER = 1_000;

/** The largest template (its parts together), in characters. */
export const MAX_TEMPLATE_CHARS = 256 * 1024;

/** The service's templates, kept in its store (so any node of a team service renders them). */
export interface TemplateRegistry {
  /** Registers (or replaces) a template; the oldest of the caller's goes when it holds {@link MAX_TEMPLATES_PER_CALLER}. */
  put(owner: string, provider: string, id: string, template: EmailTemplate): Promise<void>;
  get(owner: string, provider: string, id: string): Promise<EmailTemplate | null>;
  delete(owner: string, provider: string, id: string): Promise<boolean>;
}

/** The store's part the registry uses (`Store` has it). */
export interface TemplateStore {
  putEmailTemplate(key: { owner: string; provider: string; id: string }, template: EmailTemplate, now: number, maxPerOwner: number): Promise<void>;
  findEmailTemplate(key: { owner: string; provider: string; id: string }): Promise<EmailTemplate | null>;
  deleteEmailTemplate(key: { owner: string; provider: string; id: string }): Promise<boolean>;
}

/** The registry over a store, at the service's clock. */
export function createTemplateRegistry(store: TemplateStore, now: () => number): TemplateRegistry {
  return {
    put: (owner, provider, id, template) => store.putEmailTemplate({ owner, provider, id }, template, now(), MAX_TEMPLATES_PER_CALLER),
    get: (owner, provider, id) => store.findEmailTemplate({ owner, provider, id }),
    delete: (owner, provider, id) => store.deleteEmailTemplate({ owner, provider, id }),
  };
}

/** Loads Handlebars (Node's module cache keeps it), or the error that says how to install it. */
async function loadHandlebars(): Promise<Handlebars | { error: string }> {
  try {
    const loaded = (await import('handlebars')) as unknown as { default?: Handlebars } & Handlebars;
    return loaded.default ?? loaded;
  } catch {
    return { error: 'email templates need the optional package handlebars, which is not installed: npm i -D handlebars (next to inboxkit), then send again.' };
  }
}

/** Renders one part: Handlebars, HTML-escaping `{{ }}` in HTML only (`{{{ }}}` stays raw), as the providers do. */
function renderPart(Handlebars: Handlebars, source: string, data: unknown, html: boolean): string {
  const template = Handlebars.compile(source, { noEscape: !html, strict: false });
  return template(data ?? {}, { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false });
}

/**
 * Renders a template with a send's data, or the error naming the part that
 * does not compile (a template error the provider would report at send).
 */
export async function renderTemplate(template: EmailTemplate, data: unknown): Promise<RenderedTemplate | { error: string }> {
  const Handlebars = await loadHandlebars();
  if ('error' in Handlebars) return Handlebars;
  try {
    return {
      subject: renderPart(Handlebars, template.subject, data, false),
      html: template.html === null ? undefined : renderPart(Handlebars, template.html, data, true),
      text: template.text === null ? undefined : renderPart(Handlebars, template.text, data, false),
    };
  } catch (error) {
    return { error: `the template does not render: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  }
}

/** Reads a template registration's JSON body (`{ subject, html, text }`), or the error naming what is wrong. */
export async function parseTemplate(body: unknown): Promise<EmailTemplate | { error: string }> {
  if (typeof body !== 'object' || body === null) return { error: 'The body must be JSON: { "subject": "…", "html": "…", "text": "…" } (Handlebars sources; html or text required).' };
  const json = body as Record<string, unknown>;
  const part = (name: string) => (typeof json[name] === 'string' ? (json[name] as string) : null);
  const template = { subject: part('subject') ?? '', html: part('html'), text: part('text') };
  if (template.html === null && template.text === null) return { error: 'A template needs `html` or `text` (Handlebars sources).' };
  if (template.subject.length + (template.html?.length ?? 0) + (template.text?.length ?? 0) > MAX_TEMPLATE_CHARS) return { error: `A template is at most ${MAX_TEMPLATE_CHARS} characters.` };
  const Handlebars = await loadHandlebars();
  if ('error' in Handlebars) return Handlebars;
  for (const source of [template.subject, template.html, template.text]) {
    if (source === null) continue;
    try {
      Handlebars.precompile(source);
    } catch (error) {
      return { error: `The template does not compile: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
    }
  }
  return template;
}
