-- Stats of this run over the whole serving state: `v2` for GET /v1/stats, `x402` and `erc8004`
-- for the legacy /api/v1 endpoints (spec 4.9, 4.11). Each payment is counted once, on its payer.
CREATE OR REPLACE TEMP MACRO agent_grade(n, total) AS {'count': n, 'pct': round(100.0 * n / greatest(1, total), 1)};

-- Keeps address_stat_cells (migration 029): the serving addresses counted by every attribute a
-- stat splits them by (a few hundred cells; 30 filtered aggregates over every row cost more than
-- grouping). Roles are over all their chains, entity_type on the best one
-- (sql/score/address_scores.sql). The score is a key (a whole number 0-100): its grade, sum, least
-- and most follow. A run adds the rows it wrote, found by the run id (every row after a full run,
-- which starts from no cells), and subtracts those it replaced (replaced_addresses, in the same
-- column order).
CREATE OR REPLACE TEMP TABLE run_address_cells AS
WITH changes AS (
  SELECT entity_type, score, candidate_as_payer, candidate_as_payee, verified_as_payer, verified_as_payee,
         is_known_erc8004_agent, 1 AS sign
    FROM address_scores WHERE run_id = getvariable('run_id')
  UNION ALL
  SELECT * EXCLUDE (row_id), -1 FROM replaced_addresses
),
counted AS (
  SELECT entity_type, score, candidate_as_payer > 0 AS payer, candidate_as_payee > 0 AS payee,
         verified_as_payer + verified_as_payee > 0 AS verified_activity, is_known_erc8004_agent,
         sum(sign) AS n, sum(sign * candidate_as_payer) AS candidate, sum(sign * verified_as_payer) AS verified
    FROM changes
   GROUP BY ALL
  UNION ALL
  SELECT * FROM address_stat_cells WHERE NOT getvariable('is_full')
)
SELECT entity_type, score, payer, payee, verified_activity, is_known_erc8004_agent,
       sum(n)::BIGINT AS n, sum(candidate)::BIGINT AS candidate, sum(verified)::BIGINT AS verified
  FROM counted
 GROUP BY ALL
HAVING sum(n) <> 0;

DELETE FROM address_stat_cells;
INSERT INTO address_stat_cells SELECT * FROM run_address_cells;

-- Keeps chain_stat_cells (migration 029) the same way: the chain rows with candidate payment
-- activity, per chain (the replaced rows of stored_chain_rows: sql/score/payment_facts.sql).
CREATE OR REPLACE TEMP TABLE run_chain_cells AS
SELECT chain, sum(active)::BIGINT AS active
  FROM (SELECT chain, count(*) AS active FROM chain_scores
         WHERE run_id = getvariable('run_id') AND candidate_as_payer + candidate_as_payee > 0 GROUP BY chain
        UNION ALL
        SELECT chain, -count(*) FROM stored_chain_rows
         WHERE replaced AND candidate_as_payer + candidate_as_payee > 0 GROUP BY chain
        UNION ALL
        SELECT chain, active FROM chain_stat_cells WHERE NOT getvariable('is_full'))
 GROUP BY chain
HAVING sum(active) <> 0;

DELETE FROM chain_stat_cells;
INSERT INTO chain_stat_cells SELECT * FROM run_chain_cells;

INSERT INTO run_stats
WITH cells AS (
  SELECT entity_type, grade_of(score) AS grade, payer, payee, payer OR payee AS paid, verified_activity,
         is_known_erc8004_agent, n, candidate, verified,
         n * score AS score_sum, score AS max_score, score AS min_score
    FROM address_stat_cells
),
addresses AS (          -- `x402_*`: over the addresses with candidate payment activity (the legacy stats)
  SELECT coalesce(sum(n), 0)::INTEGER AS scored,
         coalesce(sum(n) FILTER (entity_type = 'agent'), 0)::INTEGER AS agent,
         coalesce(sum(n) FILTER (entity_type = 'service'), 0)::INTEGER AS service,
         coalesce(sum(n) FILTER (entity_type = 'wallet'), 0)::INTEGER AS wallet,
         coalesce(sum(n) FILTER (entity_type = 'hybrid'), 0)::INTEGER AS hybrid,
         coalesce(sum(n) FILTER (entity_type = 'unknown'), 0)::INTEGER AS unknown,
         coalesce(sum(n) FILTER (grade = 'A'), 0)::INTEGER AS a, coalesce(sum(n) FILTER (grade = 'B'), 0)::INTEGER AS b,
         coalesce(sum(n) FILTER (grade = 'C'), 0)::INTEGER AS c, coalesce(sum(n) FILTER (grade = 'D'), 0)::INTEGER AS d,
         coalesce(sum(n) FILTER (grade = 'F'), 0)::INTEGER AS f,
         coalesce(sum(n) FILTER (paid), 0)::INTEGER AS with_candidate,
         coalesce(sum(n) FILTER (verified_activity), 0)::INTEGER AS with_verified,
         coalesce(sum(candidate), 0)::BIGINT AS candidate, coalesce(sum(verified), 0)::BIGINT AS verified,
         coalesce(sum(n) FILTER (payer), 0)::INTEGER AS payers,
         coalesce(sum(n) FILTER (payee), 0)::INTEGER AS payees,
         coalesce(sum(n) FILTER (payer AND payee), 0)::INTEGER AS both_roles,
         coalesce(sum(n) FILTER (is_known_erc8004_agent AND paid), 0)::INTEGER AS identified_agents,
         coalesce(sum(n) FILTER (paid AND grade = 'A'), 0)::INTEGER AS x402_a,
         coalesce(sum(n) FILTER (paid AND grade = 'B'), 0)::INTEGER AS x402_b,
         coalesce(sum(n) FILTER (paid AND grade = 'C'), 0)::INTEGER AS x402_c,
         coalesce(sum(n) FILTER (paid AND grade = 'D'), 0)::INTEGER AS x402_d,
         coalesce(sum(n) FILTER (paid AND grade = 'F'), 0)::INTEGER AS x402_f,
         round(sum(score_sum) FILTER (paid) / sum(n) FILTER (paid), 1) AS x402_avg_score,
         max(max_score) FILTER (paid) AS x402_max_score, min(min_score) FILTER (paid) AS x402_min_score,
         coalesce(sum(n) FILTER (paid AND entity_type = 'agent'), 0)::INTEGER AS x402_agent,
         coalesce(sum(n) FILTER (paid AND entity_type = 'hybrid'), 0)::INTEGER AS x402_hybrid,
         coalesce(sum(n) FILTER (paid AND entity_type = 'service'), 0)::INTEGER AS x402_service
    FROM cells
),
agents AS (             -- one pass over the agents
  SELECT count(*)::INTEGER AS total, round(avg(score), 1) AS avg_score, max(score) AS max_score, min(score) AS min_score,
         count(*) FILTER (metadata_quality = 'real')::INTEGER AS real,
         count(*) FILTER (metadata_quality = 'placeholder')::INTEGER AS placeholder,
         count(*) FILTER (metadata_quality = 'unknown')::INTEGER AS unknown,
         count(*) FILTER (grade = 'A')::INTEGER AS a, count(*) FILTER (grade = 'B')::INTEGER AS b,
         count(*) FILTER (grade = 'C')::INTEGER AS c, count(*) FILTER (grade = 'D')::INTEGER AS d,
         count(*) FILTER (grade = 'F')::INTEGER AS f
    FROM agent_scores
),
agent_chains AS (
  SELECT coalesce(map(list(chain ORDER BY chain), list(n ORDER BY chain)), MAP {}) AS by_chain
    FROM (SELECT chain, count(*)::INTEGER AS n FROM agent_scores GROUP BY chain)
),
run AS (SELECT run_id, model_version, iso(utc_now()) AS as_of FROM run_params)
SELECT run_id, 'v2', to_json({
  'version': 'v2',
  'as_of_time': as_of,
  'data_semantics': 'candidate_payment_activity_with_verified_subset',
  'erc8004': {
    'known_agents': g.total,
    'by_chain': c.by_chain,
    'metadata_quality_distribution': {'real': g.real, 'placeholder': g.placeholder, 'unknown': g.unknown}},
  'reputation': {
    'total_addresses': a.scored + (SELECT count(DISTINCT address)::INTEGER FROM known_addresses k
                                    WHERE NOT EXISTS (SELECT 1 FROM address_scores s WHERE s.address = k.address)),
    'scored_addresses': a.scored,
    'entity_distribution': {
      'agent': a.agent, 'service': a.service, 'wallet': a.wallet, 'hybrid': a.hybrid, 'unknown': a.unknown},
    'score_distribution': {'A': a.a, 'B': a.b, 'C': a.c, 'D': a.d, 'F': a.f}},
  'payments': {
    'addresses_with_candidate_payment_activity': a.with_candidate,
    'addresses_with_verified_payment_activity': a.with_verified,
    'total_candidate_transactions': a.candidate,
    'total_verified_transactions': a.verified,
    'verification_status_summary': {'candidate': a.candidate - a.verified, 'verified': a.verified}},
  'caveats': ['Candidate payments are EIP-3009 authorised transfers and Permit2 settlements; verified ones were submitted by known x402 facilitators.',
              'verification_status_summary counts each candidate payment once: `candidate` those not verified, `verified` the rest.']
}) FROM run, addresses a, agents g, agent_chains c
UNION ALL
SELECT run_id, 'x402', to_json({
  'total_wallets': a.with_candidate,
  'distribution': {'A': a.x402_a, 'B': a.x402_b, 'C': a.x402_c, 'D': a.x402_d, 'F': a.x402_f},
  'avg_score': a.x402_avg_score,
  'max_score': a.x402_max_score,
  'min_score': a.x402_min_score,
  'wallets_as_payer': a.payers,
  'wallets_as_payee': a.payees,
  'wallets_both_roles': a.both_roles,
  'total_transactions': a.candidate,
  'roles': {'agent': a.x402_agent, 'hybrid': a.x402_hybrid, 'service': a.x402_service},
  'identified_agents': a.identified_agents,
  -- the chains where a served address has candidate payment activity (not those of payment_pairs:
  -- an on-demand run brings the payments up to date but rescores only what it was asked)
  'data_source': 'x402 candidate payments (EIP-3009 and Permit2) on ' || (SELECT coalesce(string_agg(chain, ', ' ORDER BY chain), 'no chains') FROM chain_stat_cells),
  'version': 'v1'
}) FROM run, addresses a
UNION ALL
SELECT run_id, 'erc8004', to_json({
  'total_agents': g.total,
  'average_score': g.avg_score,
  'max_score': g.max_score,
  'min_score': g.min_score,
  'grade_distribution': MAP {'A': agent_grade(g.a, g.total), 'B': agent_grade(g.b, g.total), 'C': agent_grade(g.c, g.total),
                             'D': agent_grade(g.d, g.total), 'F': agent_grade(g.f, g.total)},
  'chains': c.by_chain,
  'scoring': {'weights': {'identity': 0.2, 'activity': 0.2, 'capability': 0.3, 'reach': 0.05, 'trust': 0.25},
              'version': model_version,
              'dimensions': ['identity', 'activity', 'capability', 'reach', 'trust']}
}) FROM run, agents g, agent_chains c;
