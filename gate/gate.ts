// The merchant gate (spec 7.2, gate/CONTRACT.md): `evaluate` turns a request and its payment into a
// pass or a denial by asking the service's assess with the merchant's policy and the payment's
// signer; `capture` tells the service which wallet paid (spec 4.8), fire and forget.
//
// Framework-free: the adapters (gate/adapters/) put it in front of Koa, Express and Fetch API
// handlers. It speaks to the service over HTTP only (gate/service-client.ts), and never throws:
// every failure of the service is a denial (fail closed) or, with `failOpen`, a degraded pass. Only
// the service failing may pass: an answer (an expired token, a refusal of the merchant's key, a
// sanctions list it could not screen with) is never fail-open.
import { koaAdapter, type KoaGateOptions } from './adapters/koa.ts';
import { expressAdapter, type ExpressGateOptions } from './adapters/express.ts';
import { fetchAdapter, type FetchGateOptions, type FetchHandler } from './adapters/fetch.ts';
import { sessionOf, verdictOf } from './assessment.ts';
import { createTtlCache } from './cache.ts';
import {
  apiError,
  complianceDenied,
  identityModeFields,
  identityVerificationRequired,
  invalidCredential,
  misconfigured,
  missingIdentity,
  operatorTokenModeFields,
  paymentRequired,
  tokenExpired,
  walletModeFields,
  type ModeFields,
  type SessionFields,
} from './denials.ts';
import { presentedIdentity, type Presented } from './headers.ts';
import { createServiceClient, errorCodeOf, infraReasonOf, problemOf, problemReporter, type Answered, type ServiceAnswer } from './service-client.ts';
import { serviceAddress } from './service-address.ts';
import { isDenial, type GateDenial, type GatePass, type GateResult, type InfraReason, type Payment, type Policy, type RequestLike, type ServiceProblem } from './types.ts';

export interface GateOptions {
  /** The identity service, e.g. `https://reputation.example` (its /v1 API). */
  serviceUrl: string;
  /** The merchant's API key (a plan with assess; auto-sessions need sessions too). */
  apiKey: string;
  /** Sent to assess on every request (spec 4.2); none: assess allows with `no_policy_applied`. */
  policy?: Policy;
  /** No identity header: mint a verification session and answer identity_verification_required (default), or answer missing_identity. */
  autoSession?: boolean;
  /** The service failing (429, 5xx, timeout) passes the buyer, degraded, instead of 503 (default false: fail closed). */
  failOpen?: boolean;
  /** How long an allow or a lasting denial is reused (default 300 s; 0: no cache). */
  cacheTtlSeconds?: number;
  /** At most this many cached results (default 10,000), least recently used out first. */
  cacheMaxEntries?: number;
  /** Each call to the service, headers and body (default 3000 ms). */
  timeoutMs?: number;
  /** Wallet capture's own budget (default 2000 ms); it never delays the merchant's answer anyway. */
  captureTimeoutMs?: number;
  /** Shown on the verify page of sessions the gate mints (at most 200 characters). */
  productName?: string;
  /** The Fetch API implementation (default the global fetch); tests inject one. */
  fetch?: typeof globalThis.fetch;
  /** Told of every call to the service that went wrong (for the merchant's logs); never of a buyer's denial. */
  onServiceProblem?: (problem: ServiceProblem) => void;
}

export interface Gate {
  evaluate(request: RequestLike, payment?: Payment): Promise<GateResult>;
  /** After a successful payment in operator-token mode: tie the signer to the operator (spec 4.8). Returns at once, never throws. */
  capture(pass: GatePass, payment: Payment): void;
  /** Rule 3's fields of a pass (wallet mode: who must sign), which the adapters add to a JSON 402 of the payment layer. */
  identityModeFields(pass: GatePass): Record<string, unknown>;
  /** The merchant's own refusal for reasons verifying cannot fix (403 compliance_denied, contact_support). */
  complianceDenied(reasons: string[], message?: string): GateDenial;
  /** Koa middleware: the pass on `ctx.state.identity`, a denial answered. */
  koa(options?: KoaGateOptions): ReturnType<typeof koaAdapter>;
  /** Express middleware: the pass on `res.locals.identity`, a denial answered. */
  express(options?: ExpressGateOptions): ReturnType<typeof expressAdapter>;
  /** A Fetch API handler behind the gate (Hono, Next.js route handlers, workers); the pass from `identityOf(request)`. */
  fetch<A extends unknown[]>(handler: FetchHandler<A>, options?: FetchGateOptions): (request: Request, ...rest: A) => Promise<Response>;
}

export function createGate(options: GateOptions): Gate {
  const autoSession = options.autoSession ?? true;
  const failOpen = options.failOpen ?? false;
  const client = createServiceClient({ serviceUrl: options.serviceUrl, apiKey: options.apiKey, timeoutMs: options.timeoutMs ?? 3000, fetch: options.fetch });
  const cache = createTtlCache<GateResult>({ ttlSeconds: options.cacheTtlSeconds ?? 300, maxEntries: options.cacheMaxEntries ?? 10_000 });
  const policyKey = JSON.stringify(options.policy ?? null);
  const problem = problemReporter(options.onServiceProblem);
  const ownAddress = serviceAddress(client);

  // Rule 2: the service failing is 503, or with failOpen a degraded pass (nothing checked).
  function infraResult(reason: InfraReason, presented: Presented): GateResult {
    if (!failOpen) return apiError(reason);
    return { ...identityOf(presented), identityStatus: 'unverified', signerChecked: false, degraded: true, infraReason: reason };
  }

  /** The service refusing the merchant (key, plan, request) rather than failing: never fail-open. */
  function refusal(call: ServiceProblem['call'], answer: Answered, mode: ModeFields): GateDenial {
    return answer.status === 402 ? paymentRequired(mode, call === 'sessions' ? 'verification sessions' : 'identity assessments') : misconfigured();
  }

  /** A session of POST /v1/sessions; a failure is reported here and answered by the caller. */
  async function mintSession(): Promise<{ session: SessionFields } | { failed: ServiceAnswer }> {
    // No context: the service then mints the session rather than writing it (one per buyer without an identity).
    const answer = await client.call('POST', '/v1/sessions', options.productName ? { product_name: options.productName.slice(0, 200) } : {});
    const session = answer.kind === 'answer' && answer.status === 200 ? sessionOf(answer.body) : null;
    if (session) {
      ownAddress.learnFrom((answer as Answered).body.agent_memory);
      return { session };
    }
    problem(answer.kind === 'answer' && answer.status === 200 ? { call: 'sessions', status: 200, detail: 'the session answer lacks its fields' } : problemOf('sessions', answer));
    return { failed: answer };
  }

  /** A session the gate needed but could not mint: the service failing, or refusing the merchant. */
  function sessionFailure(answer: ServiceAnswer, presented: Presented, mode: ModeFields): GateResult {
    const infra = infraReasonOf(answer);
    return infra ? infraResult(infra, presented) : refusal('sessions', answer as Answered, mode);
  }

  async function withoutIdentity(presented: Presented & { mode: 'none' }): Promise<GateResult> {
    if (!autoSession) return missingIdentity(await ownAddress.current(), presented.malformed);
    const minted = await mintSession();
    if ('failed' in minted) return sessionFailure(minted.failed, presented, {});
    return identityVerificationRequired(minted.session, ['kyc_required'], {}, presented.malformed);
  }

  async function assess(presented: Exclude<Presented, { mode: 'none' }>, payment: Payment | undefined): Promise<{ result: GateResult; lasting: boolean }> {
    const walletMode: ModeFields = presented.mode === 'wallet' ? walletModeFields(presented, undefined) : operatorTokenModeFields;
    const signer = signerOf(presented, payment);
    const answer = await client.call('POST', '/v1/assess', assessBody(presented, options.policy, signer));
    const infra = infraReasonOf(answer);
    if (infra) {
      problem(problemOf('assess', answer));
      return { result: infraResult(infra, presented), lasting: false };
    }
    const answered = answer as Answered;
    if (answered.status === 401) {
      const code = errorCodeOf(answered);
      if (code === 'invalid_credential') return { result: invalidCredential(), lasting: false };
      if (code === 'token_expired') {
        // The service answered: the token is no good. Without a session (none could be minted) the
        // denial still says so, never a fail-open pass.
        const session = sessionOf(answered.body?.error) ?? (await mintSession().then((m) => ('session' in m ? m.session : null)));
        return { result: tokenExpired(session, refreshUrlOf(session?.poll_url, client.serviceUrl)), lasting: false };
      }
    }
    if (answered.status !== 200) {
      problem(problemOf('assess', answered));
      return { result: refusal('assess', answered, walletMode), lasting: false };
    }
    const mode: ModeFields = presented.mode === 'wallet' ? walletModeFields(presented, answered.body?.linked_wallets) : operatorTokenModeFields;
    const verdict = verdictOf(answered.body, presented, mode);
    switch (verdict.kind) {
      case 'pass':
        return { result: passOf(presented, answered.body, typeof signer?.address === 'string'), lasting: true };
      case 'deny':
        return { result: verdict.denial, lasting: verdict.lasting };
      case 'unscreened':
        // The service chose to fail closed on its outage: 503 whatever failOpen says.
        problem({ call: 'assess', status: 200, detail: 'assess could not screen against the sanctions list (sanctions_check_unavailable)' });
        return { result: apiError('api_error'), lasting: false };
      case 'unreadable':
        problem({ call: 'assess', status: 200, detail: verdict.detail });
        return { result: infraResult('api_error', presented), lasting: false };
      case 'verify': {
        if (verdict.session) return { result: identityVerificationRequired(verdict.session, verdict.reasons, mode), lasting: false };
        const minted = await mintSession();
        if ('failed' in minted) return { result: sessionFailure(minted.failed, presented, mode), lasting: false };
        return { result: identityVerificationRequired(minted.session, verdict.reasons, mode), lasting: false };
      }
    }
  }

  const gate: Gate = {
    async evaluate(request, payment) {
      let presented: Presented;
      try {
        presented = presentedIdentity(request.headers);
      } catch {
        presented = { mode: 'none' };
      }
      if (presented.mode === 'none') return withoutIdentity(presented);
      const key = JSON.stringify([presented.mode, presented.mode === 'wallet' ? presented.address : presented.token, policyKey, signerKey(presented, payment)]);
      const cached = cache.get(key);
      // A copy of a pass: the merchant may add to the state it is handed.
      if (cached) return isDenial(cached) ? cached : { ...cached };
      const { result, lasting } = await assess(presented, payment);
      // Rule 3: only what holds for the cache's lifetime (allow, lasting denials); never a degraded
      // pass; an operator token's allow no longer than the token lives.
      if (lasting && !('degraded' in result)) cache.set(key, result, credentialExpiry(result));
      return result;
    },

    capture(pass, payment) {
      try {
        if (pass.identityMode !== 'operator_token' || !pass.operatorToken || !payment || typeof payment.signer !== 'string') return;
        const body = {
          operator_token: pass.operatorToken,
          wallet_address: payment.signer,
          network: payment.network,
          ...(payment.idempotencyKey ? { idempotency_key: payment.idempotencyKey.slice(0, 200) } : {}),
        };
        // Started after the caller's turn, never awaited: the merchant's answer does not wait for it.
        Promise.resolve()
          .then(() => client.call('POST', '/v1/credentials/wallets', body, options.captureTimeoutMs ?? 2000))
          .then((answer) => {
            if (answer.kind !== 'answer' || answer.status !== 200) problem(problemOf('capture', answer));
          })
          .catch((err: unknown) => problem({ call: 'capture', detail: String(err) }));
      } catch (err) {
        problem({ call: 'capture', detail: String(err) });
      }
    },

    identityModeFields,
    complianceDenied,
    koa: (adapterOptions) => koaAdapter(gate, adapterOptions),
    express: (adapterOptions) => expressAdapter(gate, adapterOptions),
    fetch: (handler, adapterOptions) => fetchAdapter(gate, handler, adapterOptions),
  };
  return gate;
}

function assessBody(presented: Exclude<Presented, { mode: 'none' }>, policy: Policy | undefined, signer: Signer | null): Record<string, unknown> {
  return {
    ...(presented.mode === 'wallet' ? { address: presented.address } : { operator_token: presented.token }),
    ...(policy ? { policy } : {}),
    ...(signer ? { signer } : {}),
  };
}

type Signer = { address: string | null; network: string };

// The signer sent to assess. An operator token on a rail without a wallet signature has nothing to
// check (the token works on any rail, spec 5.4): assess would call that wallet_auth_requires_wallet_signing.
function signerOf(presented: Exclude<Presented, { mode: 'none' }>, payment: Payment | undefined): Signer | null {
  if (!payment) return null;
  if (payment.signer === null) return presented.mode === 'wallet' ? { address: null, network: payment.network } : null;
  const address = payment.network === 'evm' && /^0[xX][0-9a-fA-F]{40}$/.test(payment.signer) ? `0x${payment.signer.slice(2).toLowerCase()}` : payment.signer;
  return { address, network: payment.network };
}

function signerKey(presented: Exclude<Presented, { mode: 'none' }>, payment: Payment | undefined): unknown {
  const signer = signerOf(presented, payment);
  return signer ? [signer.network, signer.address] : null;
}

/** When the operator token a pass rests on expires (assess says so in token mode), ms since the epoch. */
function credentialExpiry(result: GateResult): number | undefined {
  if (isDenial(result) || typeof result.assessment?.credential_expires_at !== 'string') return undefined;
  const at = Date.parse(result.assessment.credential_expires_at);
  return Number.isNaN(at) ? undefined : at;
}

function identityOf(presented: Presented): Pick<GatePass, 'identityMode' | 'operatorToken' | 'walletAddress' | 'network'> {
  if (presented.mode === 'operator_token') return { identityMode: 'operator_token', operatorToken: presented.token };
  if (presented.mode === 'wallet') return { identityMode: 'wallet', walletAddress: presented.address, network: presented.network };
  return { identityMode: 'none' };
}

function passOf(presented: Exclude<Presented, { mode: 'none' }>, assessment: Record<string, unknown>, signerChecked: boolean): GatePass {
  const linked = Array.isArray(assessment.linked_wallets) ? (assessment.linked_wallets as string[]) : undefined;
  return { identityStatus: 'verified', ...identityOf(presented), ...(linked ? { linkedWallets: linked } : {}), signerChecked, assessment };
}

// The refresh exchange sits beside the sessions on the service's public address (poll_url's base);
// without a session, on the address the merchant configured.
function refreshUrlOf(pollUrl: string | undefined, serviceUrl: string): string {
  const base = pollUrl === undefined ? undefined : /^(https?:\/\/.+)\/v1\/sessions\/[^/?#]+$/.exec(pollUrl)?.[1];
  return `${base ?? serviceUrl}/v1/tokens/refresh`;
}
