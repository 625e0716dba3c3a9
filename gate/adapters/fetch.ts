// The Fetch API: `gate.fetch(handler)` wraps `(request: Request, ...rest) => Response`, which is
// what Hono (`c.req.raw`), Next.js route handlers, Deno, Bun and workers speak. The pass is
// `identityOf(request)` inside the handler; a denial is answered without calling it. A 402 with a
// JSON object body is answered again with rule 3's identity-mode fields added (status and headers
// kept). After a 2xx the payer's wallet is captured for an operator token, the response not waiting for it.
import { isDenial, type Evaluator, type GateDenial, type GatePass } from '../types.ts';
import { capturesAfter, judgeRequest, with402Fields, type AdapterOptions } from './request.ts';

export type FetchGateOptions = AdapterOptions<Request>;
export type FetchHandler<A extends unknown[]> = (request: Request, ...rest: A) => Response | Promise<Response>;

const identities = new WeakMap<Request, GatePass>();

/** The gate's pass for a request a `gate.fetch` handler received. */
export function identityOf(request: Request): GatePass | undefined {
  return identities.get(request);
}

export function fetchAdapter<A extends unknown[]>(evaluator: Evaluator, handler: FetchHandler<A>, options: FetchGateOptions = {}): (request: Request, ...rest: A) => Promise<Response> {
  return async (request, ...rest) => {
    const { result, payment } = await judgeRequest(evaluator, request, options);
    if (isDenial(result)) return denialResponse(result);
    identities.set(request, result);
    const response = await handler(request, ...rest);
    if (capturesAfter(options, payment, response.status)) evaluator.capture?.(result, payment);
    return response.status === 402 ? with402Body(evaluator, result, response) : response;
  };
}

async function with402Body(evaluator: Evaluator, pass: GatePass, response: Response): Promise<Response> {
  // A body already read or being read (a stream the handler handed on) is left as it is.
  if (response.bodyUsed || response.body?.locked || !/json/i.test(response.headers.get('content-type') ?? '')) return response;
  const body = with402Fields(evaluator, pass, response.status, await response.clone().json().catch(() => null));
  if (!body) return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status: response.status, statusText: response.statusText, headers });
}

/** A denial as a Fetch API Response (JSON, its status and headers), for frameworks of your own. */
export function denialResponse(denial: GateDenial): Response {
  return new Response(JSON.stringify(denial.body), { status: denial.status, headers: { 'content-type': 'application/json; charset=utf-8', ...denial.headers } });
}
