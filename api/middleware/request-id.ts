// Every response carries an X-Request-Id (time-sortable `req_…`) that also appears in our logs.
import type { Middleware } from 'koa';
import { newId } from '../secrets.ts';

export const requestId: Middleware = async (ctx, next) => {
  ctx.state.requestId = newId('req_');
  ctx.set('X-Request-Id', ctx.state.requestId);
  await next();
};
