// Every response carries an X-Request-Id (time-sortable `req_…`) that also appears in our logs.
import type { Middleware } from 'koa';
import { newId } from '../../pipeline/secrets.ts';

// Not async: a middleware with nothing to do after next() returns next()'s promise rather than
// awaiting it (here and in the /v1 middleware), as an async frame per layer is measurable on the
// cached lookup. A throw still reaches the error renderer: koa-compose turns it into a rejection.
export const requestId: Middleware = (ctx, next) => {
  ctx.state.requestId = newId('req_');
  ctx.set('X-Request-Id', ctx.state.requestId);
  return next();
};
