// Express middleware: `app.use(gate.express())` (Express 4 and 5). A pass goes on
// `res.locals.identity` and the request goes on; a denial is answered. A 402 sent with `res.json`
// (as @x402/express sends its own) gets rule 3's identity-mode fields. Once a 2xx answer has been
// sent, the payer's wallet is captured for an operator token.
import type { Request, RequestHandler } from 'express';
import { isDenial, type Evaluator } from '../types.ts';
import { capturesAfter, judgeRequest, with402Fields, type AdapterOptions } from './request.ts';

export type ExpressGateOptions = AdapterOptions<Request>;

export function expressAdapter(evaluator: Evaluator, options: ExpressGateOptions = {}): RequestHandler {
  return (req, res, next) => {
    judgeRequest(evaluator, req, options).then(({ result, payment }) => {
      if (isDenial(result)) {
        res.status(result.status).set(result.headers ?? {}).json(result.body);
        return;
      }
      res.locals.identity = result;
      const json = res.json.bind(res) as (...args: unknown[]) => typeof res;
      // Any other arity (Express 4's deprecated res.json(status, body)) goes on untouched.
      res.json = ((...args: unknown[]) => (args.length === 1 ? json(with402Fields(evaluator, result, res.statusCode, args[0]) ?? args[0]) : json(...args))) as typeof res.json;
      if (payment) {
        res.once('finish', () => {
          if (capturesAfter(options, payment, res.statusCode)) evaluator.capture?.(result, payment);
        });
      }
      next();
    }, next);
  };
}
