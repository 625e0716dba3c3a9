// GET /v1/reputation/{address} answered straight on node:http when it is the common case: a plain
// path (no query, no escapes) for a record in the cache, an active key without an IP allowlist or
// signed responses, within its rate limit and quota, whose billing cycle counter is loaded. Koa
// costs about as much per request as the whole lookup (its context objects, the router's matching
// and per-request composition, a setHeader per header): on the 2-core bench machine that held the
// cached lookup to 0.4x of a bare Koa route (docs/performance.md, docs/decisions.md "A hot path
// for cached lookups"). Everything else, every error included, goes on to the Koa app.
//
// The answer is the Koa route's, byte for byte but for the request id and the date: the same key
// index, rate limiter, usage meter and record cache, the same headers in the same order
// (test/hot-lookup.test.ts compares the two). Nothing is counted until every check has passed, so
// a request handed on to Koa is counted there, once.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseAddress } from '../../pipeline/address.ts';
import type { ApiKeyIndex } from '../accounts.ts';
import { hasEntitlement } from '../plans.ts';
import { newId } from '../../pipeline/secrets.ts';
import { planSignsResponses, type ResponseSigner } from '../security/signing.ts';
import { accountLimits } from '../usage/limits.ts';
import { quotaHeaders, type UsageMeter } from '../usage/meter.ts';
import { rateLimitHeaders, type RateLimiter } from '../usage/rate-limit.ts';
import { recordHeaders } from '../routes/reputation.ts';
import { RecordCache } from './cache.ts';
import { withVerificationLevel, type VerificationLevel } from './record.ts';

const prefix = '/v1/reputation/';

export interface HotLookupDeps {
  keys: ApiKeyIndex;
  records: RecordCache;
  /** The per-key limiter and the meter of the Koa app's /v1 routes: the same counts. */
  limiter: RateLimiter;
  usage: UsageMeter;
  now?: () => Date;
  signer?: ResponseSigner;
  /** The address's verification level now (identity/wallets/directory.ts), put into the cached record. */
  verificationLevel: (address: string) => VerificationLevel;
}

export class HotLookup {
  /** Requests answered here rather than by Koa (read by tests and the bench). */
  answered = 0;

  constructor(private readonly deps: HotLookupDeps) {}

  /** Answers `req` and returns true; or returns false having counted nothing, for Koa to answer. */
  serve(req: IncomingMessage, res: ServerResponse): boolean {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(prefix)) return false;
    // The rest must be the address alone: an escape, a query or a further segment leaves it
    // invalid here, for the router and the query schema to handle.
    const parsed = parseAddress(url.slice(prefix.length));
    if (!parsed) return false;

    const { keys, records, limiter, usage } = this.deps;
    const key = req.headers['x-api-key'];
    const auth = keys.verify(typeof key === 'string' && key !== '' ? key : undefined);
    if (!auth.valid) return false;
    const account = auth.owner;
    if (account.status !== 'active' || account.ipAllowlist || (this.deps.signer && planSignsResponses(account.plan))) return false;
    const charge = usage.prepare(account, 1);
    if (!charge) return false;
    const now = this.deps.now?.() ?? new Date();
    const cacheKey = RecordCache.key(parsed.address, { full: hasEntitlement(account.plan, 'full_reputation') });
    const entry = records.find(cacheKey, now);
    if (!entry) return false;
    const limits = accountLimits(account);
    const rate = limiter.take(account.keyId, limits.ratePerMinute, limits.ratePerSecond);
    // A refusal counts nothing: Koa asks again and answers the 429.
    if (!rate.allowed) return false;

    // Every check passed: answered and counted here, as Koa would.
    const quota = usage.commit(charge);
    records.touch(cacheKey, entry);
    this.answered++;
    const json = withVerificationLevel(entry.json, this.deps.verificationLevel(parsed.address));
    res.writeHead(200, {
      'X-Request-Id': newId('req_'),
      ...rateLimitHeaders(rate),
      ...(quota && quotaHeaders(quota)),
      ...recordHeaders(limits.cacheTtlSeconds),
      'Content-Length': String(json.length),
    });
    res.end(json);
    return true;
  }
}
