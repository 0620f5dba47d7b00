/**
 * Checks real HTTP exchanges against the server's OpenAPI document, the way an
 * outside conformance tool does: the operation is found by method and path,
 * and the status, the media type, the headers and the JSON body must be what
 * the document says for it. Requests that match no operation are checked
 * against the document's shared responses (`MethodNotAllowed`, `NotFound`,
 * `RequestRefused`). Used by the drift test and the conformance pass.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';

/** One request and what the server answered. */
export interface Exchange {
  method: string;
  /** The path under the API prefix, without the query (`/inboxes/ibx_…`). */
  path: string;
  status: number;
  /** Response headers, lower-cased names. */
  headers: Record<string, string>;
  /** The parsed JSON body, or undefined when the body was not JSON (or not read). */
  json: unknown;
}

interface HeaderDoc {
  required?: boolean;
  schema: Record<string, unknown>;
}
interface ResponseDoc {
  headers?: Record<string, HeaderDoc>;
  content?: Record<string, { schema?: unknown }>;
  links?: Record<string, { operationId: string; parameters: Record<string, string> }>;
}
/** The parts of an operation the checks read. */
export interface OperationDoc {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema: Record<string, unknown> }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, ResponseDoc>;
}
/** The parts of the document the checks read. */
export interface OpenApiDoc {
  paths: Record<string, Record<string, OperationDoc>>;
  components: { schemas: Record<string, Record<string, unknown>>; responses: Record<string, ResponseDoc> };
}

/** An operation of the document, with the key the reports use (`GET /inboxes/{id}`). */
export interface Operation {
  key: string;
  method: string;
  path: string;
  op: OperationDoc;
}

/** Header names that only the transport decides (never compared with the document). */
const TRANSPORT_HEADERS = new Set(['content-length', 'content-type', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/** Reads an OpenAPI document once and checks exchanges against it. */
export class OpenApiChecker {
  readonly operations: Operation[];
  private readonly ajv = new Ajv2020({ strict: false, validateFormats: false, validateSchema: false, allErrors: false });
  private readonly validators = new Map<string, ValidateFunction>();
  /** Every header name the document mentions anywhere, lower-cased: sending one where it is not documented is drift. */
  private readonly documentedHeaders: Set<string>;
  private readonly doc: OpenApiDoc;

  constructor(doc: OpenApiDoc) {
    this.doc = doc;
    this.ajv.addSchema(doc as object, 'openapi');
    this.operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, op })),
    );
    const all = [...this.operations.flatMap((o) => Object.values(o.op.responses)), ...Object.values(doc.components.responses)];
    this.documentedHeaders = new Set(all.flatMap((r) => Object.keys(r.headers ?? {}).map((h) => h.toLowerCase())));
  }

  /** The operation serving a method and path (literal segments before parameters), or null. */
  operationOf(method: string, path: string): Operation | null {
    const matches = this.operations.filter((o) => o.method === method.toUpperCase() && templateRegex(o.path).test(path));
    return matches.sort((a, b) => literalCount(b.path) - literalCount(a.path))[0] ?? null;
  }

  /** Whether some operation serves this path with any method. */
  private pathExists(path: string): boolean {
    return this.operations.some((o) => templateRegex(o.path).test(path));
  }

  /** Validates a value against a schema at a JSON pointer of the document. */
  validate(pointer: string, value: unknown): string | null {
    let validator = this.validators.get(pointer);
    if (!validator) {
      validator = this.ajv.compile({ $ref: `openapi#${pointer}` });
      this.validators.set(pointer, validator);
    }
    if (validator(value)) return null;
    return this.ajv.errorsText(validator.errors, { dataVar: 'value' });
  }

  /**
   * Everything in an exchange that the document does not say: an undocumented
   * status, media type or header, a documented required header missing or
   * invalid, a JSON body that does not match its schema. Empty when it conforms.
   */
  check(exchange: Exchange): string[] {
    const where = `${exchange.method} ${exchange.path} → ${exchange.status}`;
    const operation = this.operationOf(exchange.method, exchange.path);
    let response: ResponseDoc | undefined;
    let pointer: string;
    if (operation) {
      response = operation.op.responses[String(exchange.status)];
      pointer = `/paths/${escape(operation.path)}/${operation.method.toLowerCase()}/responses/${exchange.status}`;
      if (!response) return [`${where}: status ${exchange.status} is not documented for ${operation.key} (documented: ${Object.keys(operation.op.responses).join(', ')})`];
    } else {
      const name = exchange.status === 405 && this.pathExists(exchange.path) ? 'MethodNotAllowed' : exchange.status === 404 ? 'NotFound' : 'RequestRefused';
      response = this.doc.components.responses[name];
      pointer = `/components/responses/${name}`;
      if (!response) return [`${where}: no operation and no shared response ${name}`];
    }
    const problems: string[] = [];
    // Media type: the documented ones, `*/*` matching any.
    const contentType = (exchange.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const media = Object.keys(response.content ?? {});
    const mediaType = media.find((m) => m === contentType) ?? media.find((m) => m === '*/*');
    if (media.length > 0 && !mediaType) problems.push(`${where}: Content-Type ${contentType || '(none)'} is not documented (documented: ${media.join(', ')})`);
    // Headers: documented required ones present and valid; tracked ones sent only where documented.
    const documented = Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, h]) => [name.toLowerCase(), { name, h }]));
    for (const { name, h } of Object.values(documented)) {
      const value = exchange.headers[name.toLowerCase()];
      if (value === undefined) {
        if (h.required) problems.push(`${where}: documented header ${name} is missing`);
        continue;
      }
      const typed = h.schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      const error = this.validate(`${pointer}/headers/${escape(name)}/schema`, typed);
      if (error) problems.push(`${where}: header ${name}: ${JSON.stringify(value)} does not match its schema (${error})`);
    }
    for (const name of Object.keys(exchange.headers)) {
      if (TRANSPORT_HEADERS.has(name) || documented[name] || !this.documentedHeaders.has(name)) continue;
      problems.push(`${where}: header ${name} is sent but not documented for this response`);
    }
    // JSON bodies against their schema.
    if (mediaType && /json/.test(mediaType) && response.content?.[mediaType]?.schema) {
      if (exchange.json === undefined) problems.push(`${where}: the body is not JSON`);
      else {
        const error = this.validate(`${pointer}/content/${escape(mediaType)}/schema`, exchange.json);
        if (error) problems.push(`${where}: body does not match its schema: ${error}; body ${JSON.stringify(exchange.json).slice(0, 300)}`);
      }
    }
    return problems;
  }
}

/** A JSON pointer segment. */
function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

function templateRegex(template: string): RegExp {
  return new RegExp(`^${template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`);
}

function literalCount(template: string): number {
  return template.split('/').filter((s) => s && !s.startsWith('{')).length;
}

/**
 * Sends a request and records the exchange: JSON bodies parsed; an event
 * stream is read until its first bytes, then closed.
 */
export async function exchange(apiUrl: string, method: string, pathAndQuery: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Exchange> {
  const controller = new AbortController();
  const res = await fetch(`${apiUrl}${pathAndQuery}`, { method, headers: init.headers, body: init.body, signal: controller.signal });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  let json: unknown = undefined;
  if ((headers['content-type'] ?? '').startsWith('text/event-stream')) {
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await reader.cancel().catch(() => {});
  } else {
    const text = await res.text();
    if (/json/.test(headers['content-type'] ?? '')) {
      try {
        json = JSON.parse(text);
      } catch {}
    }
  }
  const path = new URL(`${apiUrl}${pathAndQuery}`).pathname.slice(new URL(apiUrl).pathname.length) || '/';
  return { method, path, status: res.status, headers, json };
}
