// The older trust-threshold gate (spec 7.2 rule 4): a wallet passes when its payment reputation on
// one chain is at or above a minimum grade. It reads `X-Wallet-Address` only and asks the plain
// reputation record, `GET /v1/reputation/{address}?chain=…` (spec 2.7), for that chain's grade:
// every plan may read it (free gets the redacted record, which keeps the grades), it takes EVM and
// Solana addresses, and it is the service's cached hot path. (The `view=full&min_grade=` variant
// would decide on the service, but it needs a paid plan, takes EVM only, also demands a minimum
// of transactions, and answers 503 for every buyer while the scoring pipeline is behind.)
//
// An address the service has not indexed, or not scored on the chain, has no grade: not trusted.
import { koaAdapter, type KoaGateOptions } from './adapters/koa.ts';
import { expressAdapter, type ExpressGateOptions } from './adapters/express.ts';
import { fetchAdapter, type FetchGateOptions, type FetchHandler } from './adapters/fetch.ts';
import { createTtlCache } from './cache.ts';
import { apiError, misconfigured, missingWalletAddress, paymentRequired, walletNotTrusted } from './denials.ts';
import { headerValue, parseWallet, walletAddressHeader } from './headers.ts';
import { createServiceClient, errorCodeOf, infraReasonOf, problemOf, problemReporter, type Answered } from './service-client.ts';
import type { GateResult, RequestLike, ServiceProblem } from './types.ts';

export const grades = ['A', 'B', 'C', 'D', 'F'] as const;
export type Grade = (typeof grades)[number];

export interface TrustGateOptions {
  serviceUrl: string;
  apiKey: string;
  /** The lowest grade that passes (A best, F worst). */
  minGrade: Grade;
  /** The chain whose grade counts (default `base`). */
  chain?: string;
  /** Verdicts are reused this long (default 300 s; 0: no cache). */
  cacheTtlSeconds?: number;
  cacheMaxEntries?: number;
  /** The service failing passes the wallet, degraded (default false: 503). */
  failOpen?: boolean;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
  onServiceProblem?: (problem: ServiceProblem) => void;
}

export interface TrustGate {
  evaluate(request: RequestLike): Promise<GateResult>;
  koa(options?: KoaGateOptions): ReturnType<typeof koaAdapter>;
  express(options?: ExpressGateOptions): ReturnType<typeof expressAdapter>;
  fetch<A extends unknown[]>(handler: FetchHandler<A>, options?: FetchGateOptions): (request: Request, ...rest: A) => Promise<Response>;
}

export function createTrustGate(options: TrustGateOptions): TrustGate {
  if (!grades.includes(options.minGrade)) throw new TypeError(`minGrade must be one of ${grades.join(', ')}`);
  const chain = options.chain ?? 'base';
  const minRank = grades.indexOf(options.minGrade);
  const client = createServiceClient({ serviceUrl: options.serviceUrl, apiKey: options.apiKey, timeoutMs: options.timeoutMs ?? 3000, fetch: options.fetch });
  const cache = createTtlCache<GateResult>({ ttlSeconds: options.cacheTtlSeconds ?? 300, maxEntries: options.cacheMaxEntries ?? 10_000 });
  const problem = problemReporter(options.onServiceProblem);

  async function judge(wallet: { address: string; network: 'evm' | 'solana' }): Promise<{ result: GateResult; lasting: boolean }> {
    const answer = await client.call('GET', `/v1/reputation/${encodeURIComponent(wallet.address)}?chain=${encodeURIComponent(chain)}`);
    const infra = infraReasonOf(answer);
    if (infra) {
      problem(problemOf('reputation', answer));
      const result: GateResult = options.failOpen
        ? { identityStatus: 'unverified', identityMode: 'wallet', walletAddress: wallet.address, network: wallet.network, signerChecked: false, degraded: true, infraReason: infra }
        : apiError(infra);
      return { result, lasting: false };
    }
    const answered = answer as Answered;
    let record: Record<string, unknown> | undefined;
    if (answered.status === 200) record = answered.body;
    else if (!(answered.status === 404 && errorCodeOf(answered) === 'unknown_address')) {
      problem(problemOf('reputation', answered));
      return { result: answered.status === 402 ? paymentRequired({}, 'reputation lookups') : misconfigured(), lasting: false };
    }
    const grade = record ? gradeOn(record, chain) : null;
    if (grade !== null && grades.indexOf(grade) <= minRank) {
      return { result: { identityStatus: 'verified', identityMode: 'wallet', walletAddress: wallet.address, network: wallet.network, signerChecked: false, grade, ...(record ? { reputation: record } : {}) }, lasting: true };
    }
    return { result: walletNotTrusted(['grade_below_threshold'], {}, { grade, min_grade: options.minGrade, chain }), lasting: true };
  }

  const gate: TrustGate = {
    async evaluate(request) {
      const raw = headerValue(request.headers, walletAddressHeader)?.trim();
      if (!raw) return missingWalletAddress();
      const wallet = parseWallet(raw);
      if (!wallet) return missingWalletAddress(raw.slice(0, 100));
      const key = `${wallet.address}|${chain}`;
      const cached = cache.get(key);
      if (cached) return cached;
      const { result, lasting } = await judge(wallet);
      if (lasting) cache.set(key, result);
      return result;
    },
    koa: (adapterOptions) => koaAdapter(gate, { payment: false, ...adapterOptions }),
    express: (adapterOptions) => expressAdapter(gate, { payment: false, ...adapterOptions }),
    fetch: (handler, adapterOptions) => fetchAdapter(gate, handler, { payment: false, ...adapterOptions }),
  };
  return gate;
}

/** The grade of `chain` in a 2.7 record (its chains[] entry); null when the address has none there. */
function gradeOn(record: Record<string, unknown>, chain: string): Grade | null {
  const chains = Array.isArray(record.chains) ? (record.chains as { chain?: unknown; score?: { grade?: unknown } }[]) : [];
  const grade = chains.find((c) => c?.chain === chain)?.score?.grade;
  return typeof grade === 'string' && (grades as readonly string[]).includes(grade) ? (grade as Grade) : null;
}
