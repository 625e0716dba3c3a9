// Builds the reputation record of spec 2.7 from per-chain score rows. Free plans get the redacted
// form (score, verification level, per-chain score and entity type, agents, semantics); paid
// plans also get confidence, classification details and activity facts.
import type { Row } from '../../pipeline/store/rows.ts';

export const dataSemantics = 'candidate_payment_activity_with_verified_subset';
const staleAfterMs = 24 * 60 * 60 * 1000;

export const caveats = [
  'Payment activity is candidate x402 activity (EIP-3009 authorised transfers); the verified subset was submitted by known facilitators.',
  'Scores are computed in batch runs and may lag the chain.',
];

export function scoreStatus(scoredAt: string, now: Date): 'scored' | 'stale' {
  return now.getTime() - Date.parse(scoredAt) > staleAfterMs ? 'stale' : 'scored';
}

export function buildReputationRecord(address: string, rows: Row[], options: { full: boolean; now: Date }) {
  const chains = rows.map((r) => chainRecord(r, options));
  // Without agents, the top-level score is the best per-chain score (rows arrive best first).
  const { value, grade, scored_at, status, version } = chains[0]!.score;
  return {
    subject: { address, chains: rows.map((r) => String(r.chain)) },
    score: { value, grade, scored_at, status, version },
    verification_level: 'none',
    chains,
    agents: [],
    data_semantics: dataSemantics,
    caveats,
    updated_at: String(rows[0]!.scored_at),
  };
}

function chainRecord(r: Row, { full, now }: { full: boolean; now: Date }) {
  const scoredAt = String(r.scored_at);
  const score = { value: Number(r.score), grade: String(r.grade), scored_at: scoredAt, status: scoreStatus(scoredAt, now), version: String(r.model_version) };
  const candidate = Number(r.candidate_as_payer) + Number(r.candidate_as_payee);
  const verified = Number(r.verified_as_payer) + Number(r.verified_as_payee);
  if (!full) return { chain: String(r.chain), score, classification: { entity_type: String(r.entity_type) } };
  return {
    chain: String(r.chain),
    score: { ...score, confidence: Number(r.confidence) },
    classification: {
      entity_type: String(r.entity_type),
      confidence: Number(r.confidence),
      is_known: true,
      is_known_erc8004_agent: false,
      has_candidate_payment_activity: candidate > 0,
      has_verified_payment_activity: verified > 0,
      reasons: classificationReasons(r),
    },
    identity: { ens_name: null, website_url: null, github_url: null },
    activity: {
      total_candidate_transactions: candidate,
      total_verified_transactions: verified,
      as_candidate_payer: Number(r.candidate_as_payer),
      as_candidate_payee: Number(r.candidate_as_payee),
      as_verified_payer: Number(r.verified_as_payer),
      as_verified_payee: Number(r.verified_as_payee),
      counterparties_count: Number(r.counterparties_count),
      active_days: Number(r.active_days),
      active_months: Number(r.active_months),
      first_candidate_tx_at: r.first_candidate_tx_at,
      last_candidate_tx_at: r.last_candidate_tx_at,
      first_verified_tx_at: r.first_verified_tx_at,
      last_verified_tx_at: r.last_verified_tx_at,
    },
  };
}

function classificationReasons(r: Row): string[] {
  const reasons: string[] = [];
  if (Number(r.candidate_as_payee) > 0) reasons.push('receives_candidate_payments');
  if (Number(r.candidate_as_payer) > 0) reasons.push('sends_candidate_payments');
  if (Number(r.verified_as_payer) + Number(r.verified_as_payee) > 0) reasons.push('has_verified_payments');
  return reasons;
}
