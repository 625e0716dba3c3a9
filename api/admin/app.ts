// The admin endpoint: POST /admin/operations/{name} with the operation's JSON arguments,
// authenticated by the bearer token from DATA_DIR/admin.token. Bound to 127.0.0.1 only. Errors in
// the public API's format; the body is read like the public API's (413 past 1 MB, 415 if not JSON).
import Koa from 'koa';
import { ApiError } from '../errors.ts';
import { errorMiddleware } from '../middleware/errors.ts';
import { jsonBody } from '../middleware/json-body.ts';
import { secretsEqual } from '../../pipeline/secrets.ts';
import { isOperationName, runOperationIn, type OperationContext, type OperationName } from './operations.ts';
import { OperationInputError } from './operation-input-error.ts';
import { QueueUnavailableError } from '../../jobs/bullmq/connection.ts';

export function createAdminApp(ctxBase: OperationContext, token: string): Koa<{ operation: OperationName }> {
  const app = new Koa<{ operation: OperationName }>();
  app.use(errorMiddleware(ctxBase.log));
  // Who and what before the body is read: a caller without the token never gets to send one.
  app.use((ctx, next) => {
    const auth = /^Bearer (.+)$/.exec(ctx.get('Authorization'));
    if (!auth || !secretsEqual(auth[1]!, token)) throw new ApiError('unauthorized', 'admin token required');
    const match = /^\/admin\/operations\/([a-z.]+)$/.exec(ctx.path);
    if (ctx.method !== 'POST' || !match || !isOperationName(match[1]!)) throw new ApiError('not_found', 'unknown admin operation');
    ctx.state.operation = match[1];
    return next();
  });
  app.use(jsonBody('1mb'));
  app.use(async (ctx) => {
    try {
      ctx.body = { result: await runOperationIn(ctxBase, ctx.state.operation, ctx.request.body) };
    } catch (err) {
      const message = (err as Error).message;
      if (err instanceof OperationInputError) throw new ApiError('bad_request', message);
      // Work that cannot be enqueued is refused at once, never left hanging.
      if (err instanceof QueueUnavailableError) throw new ApiError('unavailable', message);
      // The operator at the CLI sees what failed (the public API answers a generic message instead).
      ctxBase.log.error('admin operation failed', { operation: ctx.state.operation, error: String((err as Error).stack ?? err) });
      ctx.status = 500;
      ctx.body = { error: { code: 'internal_error', message } };
    }
  });
  return app;
}
