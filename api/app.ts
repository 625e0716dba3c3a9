// The public API: the Koa app (request id, error rendering, then open routes and X-API-Key
// routes), with assess and cached lookups answered before it by hot paths (./routes/hot-assess.ts,
// ./reputation/hot-lookup.ts).
import type { RequestListener } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import type { Store } from '../pipeline/store/store.ts';
import type { Logger } from '../pipeline/log.ts';
import type { ApiKeyIndex } from './accounts.ts';
import { ApiError } from './errors.ts';
import { requestId } from './middleware/request-id.ts';
import { errorMiddleware } from './middleware/errors.ts';
import { requireApiKey, type AuthState } from './middleware/api-key.ts';
import { planLimits } from './usage/middleware.ts';
import { RateLimiter } from './usage/rate-limit.ts';
import { ipRateLimit, type IpRateLimits } from './usage/ip-rate-limit.ts';
import { UsageMeter } from './usage/meter.ts';
import { healthRoutes } from './routes/health.ts';
import { agentsRoutes } from './routes/agents.ts';
import { legacyRoutes } from './routes/legacy.ts';
import { createStatsCache, statsRoutes } from './routes/stats.ts';
import { reputationRoutes } from './routes/reputation.ts';
import { batchRoutes } from './routes/batch.ts';
import { signupRoutes } from './routes/signup.ts';
import { openApiRoutes } from './routes/openapi.ts';
import { enforceIpAllowlist } from './security/ip-allowlist.ts';
import { trustProxies, type ProxyTrust } from './security/client-address.ts';
import type { RecordCache } from './reputation/cache.ts';
import { HotLookup } from './reputation/hot-lookup.ts';
import { HotAssess } from './routes/hot-assess.ts';
import { signingKeyRoutes, signResponses, type ResponseSigner } from './security/signing.ts';
import { createSessionRoutes, pollSessionRoutes } from './routes/sessions.ts';
import { walletClaimRoutes } from './routes/wallet-claims.ts';
import { verifyRoutes } from './routes/verify.ts';
import { kycWebhookRoutes } from './routes/kyc-webhooks.ts';
import { credentialRoutes, refreshRoutes } from './routes/credentials.ts';
import { assessRoutes } from './routes/assess.ts';
import type { IdentityService } from '../identity/service.ts';
import type { VerificationLevel } from './reputation/record.ts';

export interface AppDeps {
  store: Store;
  keys: ApiKeyIndex;
  log: Logger;
  signupUrl: string;
  startedAt?: Date;
  now?: () => Date;
  /** Usage counters (the server owns and flushes them); a fresh one without a flush timer otherwise. */
  usage?: UsageMeter;
  /** Checked by GET /health when set (the job queue). */
  redisUrl?: string;
  /** Signs responses to enterprise keys and serves the public key; the server always passes it. */
  signer?: ResponseSigner;
  /** Served reputation records kept in memory (RECORD_CACHE_SIZE); none when absent. */
  records?: RecordCache;
  /** Age of the newest scoring run past which records are stale (STALE_AFTER_SECONDS; default 24 h). */
  staleAfterSeconds?: number;
  /** Reverse proxies trusted for the client's address (TRUST_PROXY_HOPS); none when absent. */
  proxy?: ProxyTrust;
  /** Per-IP limits of the routes without a key (IP_RATE_PER_*); the server always passes them. */
  ipRateLimits?: IpRateLimits;
  /** The per-key rate limiter of the /v1 routes; a fresh one otherwise. */
  keyLimiter?: RateLimiter;
  /** The identity half: verification sessions, the verify page, KYC webhooks (identity/). */
  identity: IdentityService;
}

/**
 * The request listener of the public API: the hot paths in front of the Koa app, sharing its key
 * limiter and usage meter: assess (./routes/hot-assess.ts), and cached lookups when there is a
 * record cache (./reputation/hot-lookup.ts); the Koa app for the rest.
 */
export function createApiListener(deps: AppDeps): { listener: RequestListener; hot?: HotLookup; hotAssess: HotAssess } {
  const shared = { ...deps, keyLimiter: deps.keyLimiter ?? new RateLimiter(deps.now ?? (() => new Date())), usage: deps.usage ?? newUsageMeter(deps) };
  const koa = createApp(shared).callback();
  const hotAssess = new HotAssess({ keys: deps.keys, limiter: shared.keyLimiter, usage: shared.usage, identity: deps.identity, log: deps.log, signer: deps.signer, handOn: koa });
  const hot = deps.records
    ? new HotLookup({
        keys: deps.keys,
        records: deps.records,
        limiter: shared.keyLimiter,
        usage: shared.usage,
        now: deps.now,
        signer: deps.signer,
        verificationLevel: verificationLevelOf(deps),
      })
    : undefined;
  return {
    hot,
    hotAssess,
    listener: (req, res) => {
      let answered: boolean;
      try {
        answered = hotAssess.serve(req, res) || (hot?.serve(req, res) ?? false);
      } catch (err) {
        // A failure here must not take the process down: Koa answers (its error renderer, a 500
        // for whatever made the hot path throw) unless this response already started.
        deps.log.error('hot path failed; handed to Koa', { path: req.url, error: String((err as Error)?.stack ?? err) });
        answered = res.headersSent;
        if (answered) res.destroy();
      }
      if (!answered) void koa(req, res);
    },
  };
}

/** How strongly an address is tied to a person now: live from the identity half's memory. */
function verificationLevelOf(deps: AppDeps): (address: string) => VerificationLevel {
  return (address) => deps.identity.deps.state.wallets.verificationLevel(address);
}

/** A meter without a flush timer, for an app built without the server's. */
function newUsageMeter(deps: AppDeps): UsageMeter {
  return new UsageMeter({ store: deps.store, now: deps.now, flushIntervalMs: 0 });
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  // ctx.ip, what IP allowlists check: the TCP peer unless proxies are trusted.
  trustProxies(app, deps.proxy);
  app.use(requestId);
  // Outside the error renderer so errors are signed too; nothing before it may change the body.
  if (deps.signer) app.use(signResponses(deps.signer, deps.log, deps.keys));
  app.use(errorMiddleware(deps.log));
  if (deps.ipRateLimits) app.use(ipRateLimit(new RateLimiter(deps.now ?? (() => new Date())), deps.ipRateLimits));

  // The keyless identity surfaces, in a router of their own in front of the keyed one, so that no
  // key layer can ever apply to them whatever is registered where: the verify page and its actions
  // (the person verifying has no key), the session poll (the agent holds a poll secret, not the
  // merchant's key), the refresh-token exchange (the token is the credential) and the KYC vendor's
  // webhook (signed). A request none of them matches goes on.
  const keyless = new Router();
  verifyRoutes(keyless, { identity: deps.identity, log: deps.log });
  const keylessLimiter = new RateLimiter(deps.now ?? (() => new Date()));
  pollSessionRoutes(keyless, { identity: deps.identity, limiter: keylessLimiter });
  kycWebhookRoutes(keyless, { identity: deps.identity, log: deps.log, limiter: keylessLimiter });
  refreshRoutes(keyless, { identity: deps.identity, limiter: keylessLimiter });
  app.use(keyless.routes());

  // One router for the open routes and the /v1 ones behind the key: a router does its matching,
  // host check and middleware composition for every request it sees, so a second one in line
  // doubled that on every lookup. The /v1 middleware runs only for the /v1 routes it prefixes.
  const router = new Router<AuthState>();
  const stats = createStatsCache(deps.store);
  healthRoutes(router, {
    store: deps.store,
    startedAt: deps.startedAt ?? new Date(),
    redisUrl: deps.redisUrl,
    now: deps.now,
    staleAfterSeconds: deps.staleAfterSeconds,
    serviceUrl: () => deps.identity.deps.serviceBaseUrl(),
  });
  signupRoutes(router);
  openApiRoutes(router);
  if (deps.signer) signingKeyRoutes(router, deps.signer);
  legacyRoutes(router, { store: deps.store, stats });

  // The IP allowlist check comes straight after the key check, before anything counts the call.
  // One layer for the three: the router rebuilds the chain of every matched layer per request.
  router.use(
    '/v1',
    requireApiKey(deps.keys, deps.signupUrl),
    enforceIpAllowlist(),
    planLimits(deps.keyLimiter ?? new RateLimiter(deps.now ?? (() => new Date())), deps.usage ?? newUsageMeter(deps)),
  );
  const withLevel = { ...deps, verificationLevel: verificationLevelOf(deps) };
  reputationRoutes(router, withLevel);
  batchRoutes(router, withLevel);
  statsRoutes(router, { stats });
  agentsRoutes(router, deps);
  createSessionRoutes(router, { identity: deps.identity });
  credentialRoutes(router, { identity: deps.identity });
  assessRoutes(router, { identity: deps.identity, log: deps.log });
  walletClaimRoutes(router, { identity: deps.identity });
  app.use(router.routes());
  // Sets 405 (or 501 for a method no route knows) with the path's Allow header; the error
  // middleware turns either into 405 method_not_allowed, keeping Allow (RFC 9110 requires it).
  app.use(router.allowedMethods());
  return app;
}
