// JSON request bodies (@koa/bodyparser), for the routes that take one: a body over `limit` is 413
// `payload_too_large`, a body that is not `application/json` is 415 `unsupported_media_type`, a
// malformed one 400 `bad_request`, and so is a missing one unless the route takes none (`optional`:
// the body is then `{}`, for routes whose fields are all optional).
//
// A hot path in front of Koa (api/routes/hot-assess.ts) may have read the body already and then
// handed the request on: its text is kept here (`keepReadBody`), as the stream is spent, and parsed
// by `parseJsonText`, which reads JSON as the body parser does.
import type { IncomingMessage } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { ApiError } from '../errors.ts';

const readBodies = new WeakMap<IncomingMessage, string>();

/** The text of `req`'s body, read by a hot path that hands the request on to Koa. */
export function keepReadBody(req: IncomingMessage, text: string): void {
  readBodies.set(req, text);
}

// co-body's strict mode (the body parser's): an object or an array, and no "__proto__" key
// anywhere (@hapi/bourne's protoAction "error"), which it looks for only when the text may hold one.
const strictJson = /^[\x20\x09\x0a\x0d]*(\[|\{)/;
const protoKey = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

/** A JSON body's value as the body parser reads it (its BOM dropped); throws SyntaxError otherwise. */
export function parseJsonText(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body === '') return {};
  if (!strictJson.test(body)) throw new SyntaxError('invalid JSON, only supports object and array');
  const value: unknown = JSON.parse(body);
  if (protoKey.test(body) && hasProtoKey(value)) throw new SyntaxError('object contains a forbidden prototype property');
  return value;
}

// Level by level, not recursively, as bourne scans: a deeply nested body must not overflow the stack.
function hasProtoKey(value: unknown): boolean {
  let level: object[] = typeof value === 'object' && value !== null ? [value] : [];
  while (level.length > 0) {
    const next: object[] = [];
    for (const node of level) {
      if (Object.prototype.hasOwnProperty.call(node, '__proto__')) return true;
      for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) next.push(child);
    }
    level = next;
  }
  return false;
}

export function jsonBody(limit = '32kb', options: { optional?: boolean; invalid?: 'bad_request' | 'invalid_request' } = {}): Middleware {
  // Assess answers a body it cannot read with its own code (spec 7.1: invalid_request).
  const invalid = options.invalid ?? 'bad_request';
  const notJson = () => new ApiError(invalid, 'the body is not valid JSON');
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: limit,
    jsonStrict: true,
    onError: (err) => {
      if ((err as { status?: number }).status === 413) throw new ApiError('payload_too_large', `the body is larger than ${limit}`);
      throw notJson();
    },
  });
  return async (ctx, next) => {
    if (!ctx.request.length && !ctx.get('Transfer-Encoding')) {
      if (!options.optional) throw new ApiError(invalid, 'a JSON body is required');
      (ctx.request as { body?: unknown }).body = {};
      return next();
    }
    if (!ctx.is('application/json')) throw new ApiError('unsupported_media_type', 'send the body as Content-Type: application/json');
    const read = readBodies.get(ctx.req);
    if (read === undefined) return parse(ctx, next);
    try {
      (ctx.request as { body?: unknown }).body = parseJsonText(read);
    } catch {
      throw notJson();
    }
    return next();
  };
}
