// JSON request bodies (@koa/bodyparser), for the routes that take one: a body over `limit` is 413
// `payload_too_large`, a body that is not `application/json` is 415 `unsupported_media_type`, a
// malformed one 400 `bad_request`, and so is a missing one unless the route takes none (`optional`:
// the body is then `{}`, for routes whose fields are all optional).
import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { ApiError } from '../errors.ts';

export function jsonBody(limit = '32kb', options: { optional?: boolean; invalid?: 'bad_request' | 'invalid_request' } = {}): Middleware {
  // Assess answers a body it cannot read with its own code (spec 7.1: invalid_request).
  const invalid = options.invalid ?? 'bad_request';
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: limit,
    jsonStrict: true,
    onError: (err) => {
      if ((err as { status?: number }).status === 413) throw new ApiError('payload_too_large', `the body is larger than ${limit}`);
      throw new ApiError(invalid, 'the body is not valid JSON');
    },
  });
  return async (ctx, next) => {
    if (!ctx.request.length && !ctx.get('Transfer-Encoding')) {
      if (!options.optional) throw new ApiError(invalid, 'a JSON body is required');
      (ctx.request as { body?: unknown }).body = {};
      return next();
    }
    if (!ctx.is('application/json')) throw new ApiError('unsupported_media_type', 'send the body as Content-Type: application/json');
    await parse(ctx, next);
  };
}
