// The 2.8 variant of the reputation lookup (`view=summary|full`), built from the facts each run
// precomputes (shaped by sql/serve/address_record.sql as `view_facts`) and the newest run.
// Recency and tenure depend on the clock, so their factors are computed here; the decision
// applies the caller's policy.
// docs/scoring.md ("The view variant") gives every formula.
import type { NewestRun, VerificationLevel } from './record.ts';
import { modelVersion } from '../../pipeline/score/run.ts';

export const gradeOrder = ['F', 'D', 'C', 'B', 'A'] as const;
export type Grade = (typeof gradeOrder)[number];

export interface Policy {
  min_grade: Grade;
  min_transactions: number;
}

export const defaultPolicy: Policy = { min_grade: 'C', min_transactions: 10 };

const dayMs = 24 * 60 * 60 * 1000;
const recentDays = 30;
const staleDays = 90;
const diverseCounterparties = 3;

/** The facts of the view over all the address's chains (`chain` null) or of one chain alone. */
interface ChainView {
  chain: string | null;
  metrics: {
    total_transactions: number;
    unique_counterparties: number;
    total_volume_usdc: number;
    first_seen: string | null;
    last_seen: string | null;
    active_days: number;
    active_months: number;
  };
  factors: { volume: number; diversity: number; consistency: number };
  identity: Record<string, unknown> | null;
}

export interface ViewFacts {
  best_chain: string | null;
  views: ChainView[];
}

/**
 * The facts of an address known to the index that no run has scored yet (status known_unscored):
 * no activity counted, so the view shows nulls for the score and the run, and the decision denies
 * for insufficient activity; over all chains, or on `chain` when one is asked for.
 */
export function unscoredViewFacts(chain: string | undefined): ViewFacts {
  return {
    best_chain: null,
    views: [{
      chain: chain ?? null,
      metrics: { total_transactions: 0, unique_counterparties: 0, total_volume_usdc: 0, first_seen: null, last_seen: null, active_days: 0, active_months: 0 },
      factors: { volume: 0, diversity: 0, consistency: 0 },
      identity: null,
    }],
  };
}

export function viewRecord(
  address: string,
  // null for an address no run has scored yet (unscoredViewFacts, no run)
  score: { value: number | null; grade: Grade | null },
  viewFacts: ViewFacts,
  run: NewestRun | null,
  // cacheTtlSeconds: the account's cache TTL, also sent as Cache-Control (docs/decisions.md, "Cache TTL by plan").
  // chain: the view of that chain's activity alone (the score stays the address's, as in the 2.7
  // record); none when the address has no row there.
  // verificationLevel: the address's now (spec 2.7 / 3.4), in the full view's identity.
  options: { view: 'summary' | 'full'; policy: Policy; now: Date; tier: string; cacheTtlSeconds: number; chain?: string; verificationLevel: VerificationLevel },
) {
  const { best_chain, views } = viewFacts;
  const facts = views.find((v) => v.chain === (options.chain ?? null)) ?? unscoredViewFacts(options.chain).views[0]!;
  const m = facts.metrics;
  const chain = options.chain ?? best_chain;
  const daysSince = (iso: string | null) => (iso === null ? null : Math.max(0, Math.floor((options.now.getTime() - Date.parse(iso)) / dayMs)));
  const daysSinceLastSeen = daysSince(m.last_seen);
  const tenureDays = daysSince(m.first_seen) ?? 0;
  const decision = decide(score.grade, m, daysSinceLastSeen, options.policy);
  const summary = {
    address,
    model_version: run?.modelVersion ?? modelVersion,
    computed_at: run?.scoredAt ?? null,
    data_through: { chain, block: (chain === null ? undefined : run?.tokenCursors.get(chain)) ?? null },
    score: score.value,
    grade: score.grade,
    preview: { allow_hint: decision.allow, grade_hint: score.grade },
    highlights: {
      total_transactions: m.total_transactions,
      unique_counterparties: m.unique_counterparties,
      total_volume_usdc: m.total_volume_usdc,
      last_seen: m.last_seen,
      tenure_days: tenureDays,
    },
    cache: { ttl_seconds: options.cacheTtlSeconds },
  };
  if (options.view === 'summary') return summary;
  const round1 = (x: number) => Math.round(x * 10) / 10;
  return {
    ...summary,
    decision,
    factors: {
      volume: { score: facts.factors.volume, weight: 0.25, raw: { total_volume_usdc: m.total_volume_usdc, total_transactions: m.total_transactions } },
      diversity: { score: facts.factors.diversity, weight: 0.25, raw: { unique_counterparties: m.unique_counterparties } },
      consistency: { score: facts.factors.consistency, weight: 0.2, raw: { active_days: m.active_days, active_months: m.active_months } },
      recency: {
        score: daysSinceLastSeen === null ? 0 : round1(100 * Math.max(0, 1 - daysSinceLastSeen / staleDays)),
        weight: 0.15,
        raw: { last_seen: m.last_seen, days_since_last_seen: daysSinceLastSeen },
      },
      tenure: { score: round1(100 * Math.min(1, tenureDays / 365)), weight: 0.15, raw: { first_seen: m.first_seen, tenure_days: tenureDays } },
    },
    metrics: {
      total_transactions: m.total_transactions,
      unique_counterparties: m.unique_counterparties,
      total_volume_usdc: m.total_volume_usdc,
      first_seen: m.first_seen,
      last_seen: m.last_seen,
      // Latency of the paid endpoints is not observable on chain; null until a source measures it.
      avg_latency_ms: null,
    },
    identity: identityOf(facts.identity, options.verificationLevel),
    attestation: { status: 'none' },
    billing: { tier: options.tier },
  };
}

/**
 * The full view's identity with the verification level: null only for an address that neither
 * registered an ERC-8004 agent nor is tied to a person; otherwise its facts and level.
 */
function identityOf(registered: Record<string, unknown> | null, level: VerificationLevel): Record<string, unknown> | null {
  if (registered) return { ...registered, verification_level: level };
  if (level === 'none') return null;
  return { ens_name: null, registered_agent: false, chains_registered: [], endpoint_status: 'unknown', github_repo: null, verification_level: level };
}

/** allow = the grade meets min_grade and the history meets min_transactions; the other reasons inform. */
function decide(grade: Grade | null, m: ChainView['metrics'], daysSinceLastSeen: number | null, policy: Policy) {
  const reasons: string[] = [];
  const gradeOk = grade !== null && gradeOrder.indexOf(grade) >= gradeOrder.indexOf(policy.min_grade);
  const historyOk = m.total_transactions > 0 && m.total_transactions >= policy.min_transactions;
  if (m.total_transactions === 0) reasons.push('insufficient_activity');
  else reasons.push(m.total_transactions >= policy.min_transactions ? 'sufficient_transaction_history' : 'below_min_transactions');
  if (daysSinceLastSeen !== null && daysSinceLastSeen <= recentDays) reasons.push('recent_activity');
  if (daysSinceLastSeen !== null && daysSinceLastSeen > staleDays) reasons.push('stale_activity');
  if (m.unique_counterparties >= diverseCounterparties) reasons.push('counterparty_diversity_ok');
  else if (m.total_transactions > 0) reasons.push('low_diversity');
  if (grade !== null && !gradeOk) reasons.push('grade_below_threshold');
  return { allow: gradeOk && historyOk, reasons, policy };
}
