// JSON request bodies (@koa/bodyparser), for the routes that take one: a body over `limit` is 413
// `payload_too_large`, a body that is not `application/json` is 415 `unsupported_media_type`, a
// missing or malformed one 400 `bad_request`.
import { bodyParser } from '@koa/bodyparser';
import type { Middleware } from 'koa';
import { ApiError } from '../errors.ts';

export function jsonBody(limit = '32kb'): Middleware {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: limit,
    jsonStrict: true,
    onError: (err) => {
      if ((err as { status?: number }).status === 413) throw new ApiError('payload_too_large', `the body is larger than ${limit}`);
      throw new ApiError('bad_request', 'the body is not valid JSON');
    },
  });
  return async (ctx, next) => {
    if (!ctx.request.length && !ctx.get('Transfer-Encoding')) throw new ApiError('bad_request', 'a JSON body is required');
    if (!ctx.is('application/json')) throw new ApiError('unsupported_media_type', 'send the body as Content-Type: application/json');
    await parse(ctx, next);
  };
}
