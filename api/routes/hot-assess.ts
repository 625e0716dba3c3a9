// POST /v1/assess answered straight on node:http when it is the common case: the exact path, an
// active key of a plan with `assess` and without an IP allowlist, a JSON body of a known length
// within the limit (a longer one goes to Koa, which answers 413), a request readAssessRequest
// accepts, within the key's rate limit and a quota whose cycle counter is loaded. Plans with signed
// responses get their answers signed as the signing middleware signs them
// (api/security/signing.ts). The call a merchant's gate makes on every paid request: Koa's
// per-request work (its context objects, the router's matching and composition, the body parser,
// a setHeader per header) cost more than the whole assessment (docs/performance.md, assess).
//
// The answer is the Koa route's, byte for byte but for the request id and the date: the same key
// index, rate limiter, usage meter, request reading (./assess.ts) and identity call, the same
// headers in the same order (test/hot-assess.test.ts compares the two). A request it does not
// take goes on to Koa before anything is counted: untouched when its headers say so, with the body
// it read (api/middleware/json-body.ts keepReadBody) when the body or the limits say so. Once it
// has counted the call it answers everything itself, refusals of the identity call included.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../../pipeline/log.ts';
import { newId } from '../../pipeline/secrets.ts';
import type { IdentityService } from '../../identity/service.ts';
import type { AssessRequest } from '../../identity/assess/assess.ts';
import type { ApiKeyIndex, KeyOwner } from '../accounts.ts';
import { ApiError } from '../errors.ts';
import { keepReadBody, parseJsonText } from '../middleware/json-body.ts';
import { hasEntitlement } from '../plans.ts';
import { planSignsResponses, signatureHeader, type ResponseSigner } from '../security/signing.ts';
import { accountLimits } from '../usage/limits.ts';
import { quotaHeaders, type Charge, type QuotaState, type UsageMeter } from '../usage/meter.ts';
import { rateLimitHeaders, type RateDecision, type RateLimiter } from '../usage/rate-limit.ts';
import { answerAssess, answerHeaders, assessBodyLimitBytes, readAssessRequest } from './assess.ts';

const path = '/v1/assess';
// What the body parser reads as JSON, in the spellings clients send; any other goes to Koa.
const jsonTypes = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
const jsonContentType = 'application/json; charset=utf-8';

export interface HotAssessDeps {
  keys: ApiKeyIndex;
  /** The per-key limiter and the meter of the Koa app's /v1 routes: the same counts. */
  limiter: RateLimiter;
  usage: UsageMeter;
  identity: IdentityService;
  log: Logger;
  signer?: ResponseSigner;
  /** The Koa app, for every request this path does not answer. */
  handOn: RequestListener;
}

/** A request past its count: test mode counts nothing. */
interface Counted {
  request: AssessRequest;
  requestId: string;
  rate?: RateDecision;
  charge?: Charge;
  quota?: QuotaState | null;
}

export class HotAssess {
  /** Requests answered here rather than by Koa (read by tests and the bench). */
  answered = 0;

  constructor(private readonly deps: HotAssessDeps) {}

  /** Takes `req` (and answers it, or hands it on to Koa later) and returns true; or returns false, having read nothing. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'POST' || req.url !== path) return false;
    const key = req.headers['x-api-key'];
    const auth = this.deps.keys.verify(typeof key === 'string' && key !== '' ? key : undefined);
    if (!auth.valid) return false;
    const account = auth.owner;
    if (account.status !== 'active' || account.ipAllowlist || !hasEntitlement(account.plan, 'assess')) return false;
    const { headers } = req;
    const length = Number(headers['content-length']);
    if (!(length > 0 && length <= assessBodyLimitBytes) || headers['transfer-encoding'] !== undefined) return false;
    if (!jsonTypes.has(headers['content-type']?.toLowerCase() ?? '') || (headers['content-encoding'] ?? 'identity') !== 'identity') return false;
    readBody(req, (text) => {
      let counted: Counted | null;
      try {
        counted = this.count(req, res, account, text);
      } catch (err) {
        // Nothing is counted before the last step of count(): Koa answers, from the start.
        this.deps.log.error('the assess hot path failed; handed to Koa', { path, error: String((err as Error)?.stack ?? err) });
        return this.handOff(req, res, text);
      }
      if (!counted) return;
      const signer = this.deps.signer && planSignsResponses(account.plan) ? this.deps.signer : undefined;
      this.respond(res, account, counted, signer).catch((err: unknown) => {
        // Not even the error could be sent: the connection goes, the process stays.
        this.deps.log.error('request failed', { requestId: counted.requestId, path, error: String((err as Error)?.stack ?? err) });
        res.destroy();
      });
    });
    return true;
  }

  /** The request read and counted, or null once it is handed on to Koa (nothing counted). */
  private count(req: IncomingMessage, res: ServerResponse, account: KeyOwner, text: string): Counted | null {
    let request: AssessRequest;
    try {
      request = readAssessRequest(parseJsonText(text), account.plan);
    } catch {
      // Koa reads it again and answers the problem in its words.
      this.handOff(req, res, text);
      return null;
    }
    if (request.test) return { request, requestId: newId('req_') };
    const { usage, limiter } = this.deps;
    const charge = usage.prepare(account, 1);
    const limits = accountLimits(account);
    // A refused rate take counts nothing: Koa asks again and answers the 429.
    const rate = charge && limiter.take(account.keyId, limits.ratePerMinute, limits.ratePerSecond);
    if (!charge || !rate || !rate.allowed) {
      this.handOff(req, res, text);
      return null;
    }
    return { request, requestId: newId('req_'), rate, charge, quota: usage.commit(charge) };
  }

  /** The answer to a counted request, every failure included, as the Koa route and its error middleware give it. */
  private async respond(res: ServerResponse, account: KeyOwner, { request, requestId, rate, charge, quota }: Counted, signer?: ResponseSigner): Promise<void> {
    this.answered++;
    const send = (status: number, headers: Record<string, string>, body: unknown) => sendJson(res, status, headers, body, signer);
    const counted = { 'X-Request-Id': requestId, ...(rate && rateLimitHeaders(rate)) };
    let refusal: ApiError;
    try {
      const body = await answerAssess(this.deps, account.accountId, request, requestId);
      return send(200, { ...counted, ...(quota && quotaHeaders(quota)), ...answerHeaders }, body);
    } catch (err) {
      if (err instanceof ApiError) {
        refusal = err;
        if (err.status >= 500) this.deps.log.warn('request refused', { requestId, path, code: err.code, message: err.message });
      } else {
        refusal = new ApiError('internal_error', 'internal error; retry later or contact support with the X-Request-Id');
        this.deps.log.error('request failed', { requestId, path, error: String((err as Error)?.stack ?? err) });
      }
    }
    if (res.headersSent) return void res.destroy();
    // A call the service failed is not billed, and its answer has no quota headers (api/usage/meter.ts).
    if (refusal.status >= 500) {
      if (charge) this.deps.usage.refund(charge);
      return send(refusal.status, { ...counted, ...refusal.headers }, refusal.body());
    }
    send(refusal.status, { ...counted, ...(quota && quotaHeaders(quota)), ...refusal.headers }, refusal.body());
  }

  private handOff(req: IncomingMessage, res: ServerResponse, text: string): void {
    keepReadBody(req, text);
    void this.deps.handOn(req, res);
  }
}

/** Calls `then` with the body's text once it has all arrived; never if the client goes away first. */
function readBody(req: IncomingMessage, then: (text: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => then((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
}

/** `body` as JSON; signed after Content-Length, where Koa's signing middleware puts the signature. */
function sendJson(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown, signer?: ResponseSigner): void {
  const json = JSON.stringify(body);
  const signature = signer && signatureHeader(signer, Buffer.from(json, 'utf8'));
  res.writeHead(status, { ...headers, 'Content-Type': jsonContentType, 'Content-Length': String(Buffer.byteLength(json)), ...signature });
  res.end(json);
}
