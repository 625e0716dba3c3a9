// Builds the OpenAPI 3.1 document from the operation list (operations.ts) with zod's own JSON
// Schema conversion (draft 2020-12, the dialect of OpenAPI 3.1). Request parts are converted as
// input (what a client sends), response bodies as output (what the server sends). Query values
// built by the helpers of api/routes/query.ts are shown as the type they are parsed into (see
// queryValueDocs there), since on the wire every query value is a string.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { apiKeyPrefix } from '../accounts.ts';
import { queryValueDocs } from '../routes/query.ts';
import { operations, responseHeaders, tags, type Operation, type ResponseDoc } from './operations.ts';
import { namedSchemas } from './schemas.ts';

type Json = Record<string, unknown>;

const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const schemaRef = (name: string) => `#/components/schemas/${name}`;

export interface OpenApiDocument extends Json {
  openapi: '3.1.0';
  info: Json;
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes: Json; headers: Record<string, Json> };
}

export function buildOpenApiDocument(): OpenApiDocument {
  const bodies = responseBodies();
  const paths: OpenApiDocument['paths'] = {};
  for (const op of operations) (paths[op.path] ??= {})[op.method] = operationObject(op, bodies.refOf);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Wallet reputation and identity API',
      version: packageVersion,
      description:
        'Scores of wallet addresses and ERC-8004 agents from on-chain activity, computed in batch runs. ' +
        'Routes under /v1 need an X-API-Key header; errors always have the form {"error": {"code", "message"}}. ' +
        'Any other path answers 404 not_found, another method on a /v1 path 405 method_not_allowed. ' +
        'Responses to enterprise keys are signed (X-Signature headers; public key at GET /.well-known/reputation-signing-key).',
    },
    servers: [{ url: '/', description: 'this server' }],
    tags: Object.entries(tags).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: bodies.components,
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: `The account's API key (${apiKeyPrefix}…), shown once when the account is created. Missing or unknown: 401 signup_required.` },
      },
      headers: Object.fromEntries(Object.entries(responseHeaders).map(([name, h]) => [name, { description: h.description, schema: { type: h.type } }])),
    },
  };
}

/**
 * Converts every response body in one pass, so a named schema (schemas.ts) nested anywhere is a
 * $ref to its component. Unnamed bodies are converted under a temporary id and inlined.
 */
function responseBodies() {
  const registry = z.registry<{ id: string }>();
  const ids = new Map<z.ZodType, string>();
  const named = new Set<string>();
  for (const [name, schema] of Object.entries(namedSchemas)) {
    registry.add(schema, { id: name });
    ids.set(schema, name);
    named.add(name);
  }
  for (const op of operations) {
    for (const [status, response] of Object.entries(op.responses)) {
      if (response.body && !ids.has(response.body)) {
        const id = `${op.operationId}_${status}`;
        registry.add(response.body, { id });
        ids.set(response.body, id);
      }
    }
  }
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'output', uri: schemaRef, override: withoutSafeIntegerBounds }) as {
    schemas: Record<string, Json>;
  };
  const clean = (json: Json) => {
    const { $id: _id, $schema: _schema, ...rest } = json;
    return rest;
  };
  const components = Object.fromEntries([...named].sort().map((name) => [name, clean(schemas[name]!)]));
  const refOf = (body: z.ZodType): Json => {
    const id = ids.get(body)!;
    return named.has(id) ? { $ref: schemaRef(id) } : clean(schemas[id]!);
  };
  return { components, refOf };
}

function operationObject(op: Operation, bodyJson: (body: z.ZodType) => Json): Json {
  const parameters = [...parametersOf(op.request.params, 'path'), ...parametersOf(op.request.query, 'query'), ...parametersOf(op.request.headers, 'header')];
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: [op.tag],
    security: op.apiKey ? [{ ApiKey: [] }] : [],
    ...(parameters.length ? { parameters } : {}),
    ...requestBodyOf(op),
    responses: Object.fromEntries(Object.entries(op.responses).map(([status, r]) => [status, responseObject(r, bodyJson)])),
  };
}

function requestBodyOf(op: Operation): Json {
  const { body, bodyType, bodyOptional } = op.request;
  if (!body && !bodyType) return {};
  const schema = body ? inputSchema(body) : { type: 'string', format: 'binary' };
  return { requestBody: { required: !bodyOptional, content: { [bodyType ?? 'application/json']: { schema } } } };
}

function responseObject(response: ResponseDoc, bodyJson: (body: z.ZodType) => Json): Json {
  const headers = Object.fromEntries(response.headers.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  // A redirect has no body to describe.
  if (!response.body && !response.contentType) return { description: response.description, headers };
  const contentType = response.contentType ?? 'application/json';
  const schema = response.body ? bodyJson(response.body) : { type: 'string' };
  return { description: response.description, headers, content: { [contentType]: { schema } } };
}

/** One parameter per property of the handler's zod object; its description moves up to the parameter. */
function parametersOf(schema: z.ZodObject | undefined, location: 'path' | 'query' | 'header'): Json[] {
  if (!schema) return [];
  const json = inputSchema(schema) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const { description, ...valueSchema } = property;
    return {
      name,
      in: location,
      required: location === 'path' || (json.required ?? []).includes(name),
      ...(description ? { description } : {}),
      schema: valueSchema,
    };
  });
}

function inputSchema(schema: z.ZodType): Json {
  const { $schema: _schema, ...json } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    override: ({ zodSchema, jsonSchema }) => {
      withoutSafeIntegerBounds({ jsonSchema });
      const doc = queryValueDocs.get(zodSchema);
      if (!doc) return;
      const { description } = jsonSchema;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Json)[key];
      Object.assign(jsonSchema, doc, description ? { description } : {});
    },
  }) as Json;
  return json;
}

/** zod gives every integer the bounds of a safe integer; they say nothing to a reader. */
function withoutSafeIntegerBounds({ jsonSchema }: { jsonSchema: Json }): void {
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
}
