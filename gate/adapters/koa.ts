// Koa middleware: `app.use(gate.koa())`. A pass goes on `ctx.state.identity` and the request goes
// on; a denial is answered (its status, JSON body and headers). A 402 with a JSON object body (the
// payment layer's) gets rule 3's identity-mode fields. After a 2xx the payer's wallet is captured
// for an operator token, without the answer waiting for it.
import type { Context, Middleware } from 'koa';
import { isDenial, type Evaluator } from '../types.ts';
import { capturesAfter, judgeRequest, with402Fields, type AdapterOptions } from './request.ts';

export type KoaGateOptions = AdapterOptions<Context>;

export function koaAdapter(evaluator: Evaluator, options: KoaGateOptions = {}): Middleware {
  return async (ctx, next) => {
    const { result, payment } = await judgeRequest(evaluator, ctx as Context, options);
    if (isDenial(result)) {
      ctx.status = result.status;
      ctx.set(result.headers ?? {});
      ctx.body = result.body;
      return;
    }
    ctx.state.identity = result;
    await next();
    const body = with402Fields(evaluator, result, ctx.status, ctx.body);
    if (body) ctx.body = body;
    if (capturesAfter(options, payment, ctx.status)) evaluator.capture?.(result, payment);
  };
}
