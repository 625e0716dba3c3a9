// Renders every failure in the spec's error format. Known errors keep their code; a Koa/HTTP
// error with a status keeps its status under a matching code; anything else is logged with the
// request id and answered 500 internal_error, never with a stack trace.
import type { Middleware } from 'koa';
import { ApiError, type ErrorCode } from '../errors.ts';
import type { Logger } from '../../pipeline/log.ts';
import { refundFailedRequest } from '../usage/meter.ts';

const codeForStatus: Record<number, ErrorCode> = {
  400: 'bad_request',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

export function errorMiddleware(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new ApiError('not_found', `no route for ${ctx.method} ${ctx.path}`);
      if ((ctx.status === 405 || ctx.status === 501) && ctx.body === undefined) {
        throw new ApiError('method_not_allowed', `${ctx.method} is not allowed on this path; it takes ${ctx.response.get('Allow')}`);
      }
    } catch (err) {
      const apiError = toApiError(err);
      // A 5xx the API chose to answer (stale_data, unavailable) is a condition, not a fault: a
      // warning with its message. Anything else is a fault: an error with the stack.
      if (err instanceof ApiError && apiError.status >= 500) log.warn('request refused', { requestId: ctx.state.requestId, path: ctx.path, code: apiError.code, message: apiError.message });
      else if (apiError.status >= 500) log.error('request failed', { requestId: ctx.state.requestId, path: ctx.path, error: String((err as Error)?.stack ?? err) });
      refundFailedRequest(ctx, apiError.status);
      ctx.status = apiError.status;
      ctx.set(apiError.headers);
      ctx.body = apiError.body();
    }
  };
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const status = (err as { status?: unknown })?.status;
  if (typeof status === 'number' && codeForStatus[status] && (err as { expose?: boolean }).expose) {
    return new ApiError(codeForStatus[status], (err as Error).message);
  }
  return new ApiError('internal_error', 'internal error; retry later or contact support with the X-Request-Id');
}
