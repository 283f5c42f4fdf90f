// Checks an answer against the OpenAPI document: the schema of (method, path template, status, content
// type) compiled with a JSON Schema 2020-12 validator (Ajv, the dialect OpenAPI 3.1 uses). The path
// template is found from the concrete URL; each operation checked is remembered, so a test can say
// which operations it never exercised.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;
export type OpenApiDocument = { paths: Record<string, Record<string, Json>>; components: Json };

// ajv-formats is CommonJS: its default export arrives wrapped under tsx/vitest.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

export class Contract {
  private readonly ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; pattern: RegExp; statics: number }[];
  /** "GET /api/v0/sessions/{sessionId}" → statuses seen. */
  readonly exercised = new Map<string, Set<number>>();

  constructor(readonly document: OpenApiDocument) {
    this.templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
      statics: template.split('/').filter((s) => s && !s.startsWith('{')).length,
    }));
  }

  /** The document's path template for a URL (the most specific one when several match). */
  template(url: string): string | undefined {
    const path = url.split('?')[0]!;
    return this.templates.filter((t) => t.pattern.test(path)).sort((a, b) => b.statics - a.statics)[0]?.template;
  }

  private resolve(node: Json): Json {
    let current = node;
    while (typeof current['$ref'] === 'string') {
      const ref = current['$ref'] as string;
      if (!ref.startsWith('#/')) throw new Error(`external $ref ${ref}`);
      current = ref
        .slice(2)
        .split('/')
        .reduce<unknown>((at, key) => (at as Json)[key.replace(/~1/g, '/').replace(/~0/g, '~')], this.document) as Json;
    }
    return current;
  }

  /**
   * Problems of an answer against the document (an empty list when it conforms): the operation and the
   * status must be documented, and a JSON body must match the schema.
   */
  problems(method: string, url: string, status: number, contentType: string | undefined, body: string): string[] {
    const template = this.template(url);
    if (!template) return [`${method} ${url}: no path of the document matches`];
    const operation = this.document.paths[template]![method.toLowerCase()];
    if (!operation) return [`${method} ${template}: not in the document`];
    const key = `${method.toUpperCase()} ${template}`;
    if (!this.exercised.has(key)) this.exercised.set(key, new Set());
    this.exercised.get(key)!.add(status);
    const responses = operation['responses'] as Record<string, Json>;
    const response = responses[String(status)];
    if (!response) return [`${key}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
    const content = this.resolve(response)['content'] as Record<string, Json> | undefined;
    // An answer documented without content (204) must have none.
    if (!content) return body === '' ? [] : [`${key} ${status}: documented without a body, answered ${body.length} bytes`];
    const type = (contentType ?? '').split(';')[0]!.trim();
    const media = content?.[type] ?? Object.entries(content ?? {}).find(([t]) => t.split(';')[0] === type)?.[1];
    if (!media) return [`${key} ${status}: content type ${type} is not documented (${Object.keys(content ?? {}).join(', ')})`];
    if (type !== 'application/json') return [];
    const cacheKey = `${key} ${status}`;
    let validate = this.compiled.get(cacheKey);
    if (!validate) {
      validate = this.ajv.compile(this.resolve(media['schema'] as Json));
      this.compiled.set(cacheKey, validate);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [`${key} ${status}: the body is not JSON`];
    }
    if (validate(parsed)) return [];
    return (validate.errors ?? [])
      .slice(0, 10)
      .map((e) => `${key} ${status}: ${e.instancePath || '(root)'} ${e.message} ${JSON.stringify(e.params)}`);
  }

  /** Operations of the document never checked. */
  unexercised(): string[] {
    const all = Object.entries(this.document.paths).flatMap(([template, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${template}`),
    );
    return all.filter((op) => !this.exercised.has(op));
  }
}
