// GET /docs: the OpenAPI document rendered on the server as one self-contained HTML page (inline
// CSS, no scripts, nothing fetched from elsewhere). Everything shown comes from the document, and
// every piece of text from it is escaped.
import type { OpenApiDocument } from './document.ts';

type Json = Record<string, any>;

const esc = (value: unknown): string =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const refName = (ref: string) => ref.slice(ref.lastIndexOf('/') + 1);
const anchor = (kind: string, name: string) => `${kind}-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
const schemaLink = (ref: string) => `<a href="#${esc(anchor('schema', refName(ref)))}">${esc(refName(ref))}</a>`;

export function renderDocsPage(doc: OpenApiDocument): string {
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op: op as Json })));
  const tags = (doc.tags as { name: string; description: string }[] | undefined) ?? [];
  const body = [
    `<header><h1>${esc(doc.info.title)} <small>${esc(doc.info.version)}</small></h1>`,
    `<p>${esc(doc.info.description)}</p>`,
    `<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI ${esc(doc.openapi)}). Authentication: ${securityText(doc)}</p></header>`,
    '<nav><h2>Operations</h2>',
    ...tags.map(
      (tag) =>
        `<h3>${esc(tag.name)}</h3><p>${esc(tag.description)}</p><ul>${operations
          .filter((o) => (o.op.tags as string[]).includes(tag.name))
          .map((o) => `<li><a href="#${esc(anchor('op', o.op.operationId))}">${methodBadge(o.method)} <code>${esc(o.path)}</code></a> ${esc(o.op.summary)}</li>`)
          .join('')}</ul>`,
    ),
    '</nav><main>',
    ...operations.map((o) => operationSection(o.method, o.path, o.op)),
    '<section><h2 id="schemas">Schemas</h2>',
    ...Object.entries(doc.components.schemas).map(
      ([name, schema]) => `<h3 id="${esc(anchor('schema', name))}">${esc(name)}</h3>${schema.description ? `<p>${esc(schema.description)}</p>` : ''}${schemaBlock(schema)}`,
    ),
    '</section><section><h2 id="headers">Response headers</h2><table><tr><th>Header</th><th>Type</th><th>Meaning</th></tr>',
    ...Object.entries(doc.components.headers).map(
      ([name, h]: [string, Json]) => `<tr id="${esc(anchor('header', name))}"><td><code>${esc(name)}</code></td><td>${esc(h.schema?.type ?? '')}</td><td>${esc(h.description)}</td></tr>`,
    ),
    '</table></section></main>',
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)}</title><style>${css}</style></head>
<body>${body.join('\n')}</body></html>
`;
}

function securityText(doc: OpenApiDocument): string {
  return Object.entries(doc.components.securitySchemes as Record<string, Json>)
    .map(([name, scheme]) => `<code>${esc(scheme.name ?? name)}</code> header (${esc(scheme.description ?? '')})`)
    .join('; ');
}

const methodBadge = (method: string) => `<span class="method ${esc(method)}">${esc(method.toUpperCase())}</span>`;

function operationSection(method: string, path: string, op: Json): string {
  const security = (op.security as Json[]).length ? 'Needs <code>X-API-Key</code>.' : 'No key needed.';
  const parts = [
    `<section class="op" id="${esc(anchor('op', op.operationId))}"><h2>${methodBadge(method)} <code>${esc(path)}</code></h2>`,
    `<p class="summary">${esc(op.summary)}</p><p>${esc(op.description)}</p><p>${security}</p>`,
  ];
  const parameters = (op.parameters as Json[] | undefined) ?? [];
  if (parameters.length) {
    parts.push(
      '<h3>Parameters</h3><table><tr><th>Name</th><th>In</th><th>Required</th><th>Type</th><th>Description</th></tr>',
      ...parameters.map(
        (p) =>
          `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${typeText(p.schema)}</td><td>${esc(p.description ?? '')}</td></tr>`,
      ),
      '</table>',
    );
  }
  const requestBody = op.requestBody as Json | undefined;
  if (requestBody) {
    for (const [type, media] of Object.entries(requestBody.content as Record<string, Json>)) {
      parts.push(`<h3>Request body <small>${esc(type)}</small></h3>`, schemaBlock(media.schema));
    }
  }
  parts.push('<h3>Responses</h3><table><tr><th>Status</th><th>Meaning</th><th>Body</th><th>Headers</th></tr>');
  for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
    // A redirect (303) has no content.
    const [type, media] = Object.entries((response.content ?? {}) as Record<string, Json>)[0] ?? [];
    const headers = Object.keys(response.headers ?? {})
      .map((h) => `<a href="#${esc(anchor('header', h))}"><code>${esc(h)}</code></a>`)
      .join(' ');
    const body = type && media ? bodyText(type, media.schema) : 'none';
    parts.push(`<tr><td class="status">${esc(status)}</td><td>${esc(response.description)}</td><td>${body}</td><td>${headers}</td></tr>`);
  }
  parts.push('</table></section>');
  return parts.join('\n');
}

/** An error body shows its codes; a named body links to its schema; anything else its fields. */
function bodyText(type: string, schema: Json): string {
  const codes = schema.properties?.error?.properties?.code?.enum as string[] | undefined;
  if (codes) return `error: ${codes.map((c) => `<code>${esc(c)}</code>`).join(', ')}`;
  if (type !== 'application/json') return esc(type);
  return schema.$ref || schema.anyOf ? typeText(schema) : `<details><summary>fields</summary>${schemaBlock(schema)}</details>`;
}

/** A table of every field of `schema`, nested ones with dotted paths; named schemas are links. */
function schemaBlock(schema: Json): string {
  const rows = fieldRows(schema, '');
  if (rows.length === 0) return `<p>${typeText(schema)}</p>`;
  return `<table class="fields"><tr><th>Field</th><th>Type</th><th>Required</th><th>Description</th></tr>${rows.join('')}</table>`;
}

function fieldRows(schema: Json, prefix: string): string[] {
  if (schema.anyOf && !schema.properties) {
    const objects = (schema.anyOf as Json[]).filter((s) => s.properties);
    return objects.length > 1 ? objects.flatMap((s, i) => [`<tr class="variant"><td colspan="4">${esc(prefix || 'body')}: variant ${i + 1}</td></tr>`, ...fieldRows(s, prefix)]) : [];
  }
  if (!schema.properties) return [];
  const required = new Set<string>(schema.required ?? []);
  return Object.entries(schema.properties as Record<string, Json>).flatMap(([name, property]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    const row = `<tr><td><code>${esc(path)}</code></td><td>${typeText(property)}</td><td>${required.has(name) ? 'yes' : 'no'}</td><td>${esc(descriptionOf(property))}</td></tr>`;
    const inner = unwrapNullable(property);
    const nested = inner.type === 'array' && inner.items && !inner.items.$ref ? fieldRows(inner.items, `${path}[]`) : inner.$ref ? [] : fieldRows(inner, path);
    return [row, ...nested];
  });
}

const descriptionOf = (schema: Json): string => schema.description ?? (schema.anyOf as Json[] | undefined)?.find((s) => s.description)?.description ?? '';

function unwrapNullable(schema: Json): Json {
  const branches = schema.anyOf as Json[] | undefined;
  if (!branches) return schema;
  const notNull = branches.filter((s) => s.type !== 'null');
  return notNull.length === 1 ? notNull[0]! : schema;
}

/** One line saying what a value is: type, bounds, pattern, enum, default. */
function typeText(schema: Json | undefined): string {
  if (!schema) return 'any';
  if (schema.$ref) return schemaLink(schema.$ref);
  if (schema.anyOf) {
    const types = (schema.anyOf as Json[]).map((s) => (s.pattern && !s.type ? `matching <code>${esc(s.pattern)}</code>` : typeText(s)));
    return `${schema.type ? `${esc(schema.type)} ` : ''}${types.join(' | ')}`;
  }
  if (schema.const !== undefined) return `<code>${esc(JSON.stringify(schema.const))}</code>`;
  if (schema.enum) return `one of ${(schema.enum as unknown[]).map((v) => `<code>${esc(v)}</code>`).join(', ')}`;
  let text = esc(Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any'));
  if (schema.type === 'array') text = `array of ${typeText(schema.items)}`;
  if (schema.type === 'object' && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    text = `map of ${typeText(schema.additionalProperties)}`;
  }
  const notes: string[] = [];
  if (schema.minimum !== undefined && schema.maximum !== undefined) notes.push(`${schema.minimum}–${schema.maximum}`);
  else if (schema.minimum !== undefined) notes.push(`≥ ${schema.minimum}`);
  else if (schema.maximum !== undefined) notes.push(`≤ ${schema.maximum}`);
  if (schema.minItems !== undefined) notes.push(`at least ${schema.minItems}`);
  if (schema.maxItems !== undefined) notes.push(`at most ${schema.maxItems}`);
  if (schema.maxLength !== undefined) notes.push(`at most ${schema.maxLength} characters`);
  if (schema.default !== undefined) notes.push(`default ${JSON.stringify(schema.default)}`);
  const pattern = schema.pattern ? ` matching <code>${esc(schema.pattern)}</code>` : '';
  return `${text}${notes.length ? ` (${esc(notes.join(', '))})` : ''}${pattern}`;
}

const css = `
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:72rem;padding:1rem 2rem;color:#1d232a}
h1 small,h3 small{font-weight:normal;color:#5b6470;font-size:.7em}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f2f4f7;padding:0 .25em;border-radius:3px}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}
th,td{border:1px solid #d8dde3;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
tr.variant td{background:#fafbfc;font-style:italic}
section.op{border-top:2px solid #d8dde3;margin-top:2rem}
.method{display:inline-block;min-width:3.2em;text-align:center;color:#fff;border-radius:3px;padding:0 .3em;font:bold 12px ui-monospace,monospace}
.method.get{background:#2f7d32}.method.post{background:#1f5fa8}
.summary{font-weight:600}
td.status{font-weight:600}
nav ul{padding-left:1.2rem}
`;
