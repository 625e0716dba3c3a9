-- Stats of this run over the whole serving state: `v2` for GET /v1/stats, `x402` and `erc8004`
-- for the legacy /api/v1 endpoints (spec 4.9, 4.11). Each payment is counted once, on its payer.
INSERT INTO run_stats
WITH addresses AS (     -- one pass over the serving addresses; roles are over all their chains,
                        -- entity_type on the best one (sql/score/address_scores.sql)
  SELECT count(*)::INTEGER AS scored,
         count(*) FILTER (entity_type = 'agent')::INTEGER AS agent,
         count(*) FILTER (entity_type = 'service')::INTEGER AS service,
         count(*) FILTER (entity_type = 'wallet')::INTEGER AS wallet,
         count(*) FILTER (entity_type = 'hybrid')::INTEGER AS hybrid,
         count(*) FILTER (entity_type = 'unknown')::INTEGER AS unknown,
         count(*) FILTER (grade = 'A')::INTEGER AS a, count(*) FILTER (grade = 'B')::INTEGER AS b,
         count(*) FILTER (grade = 'C')::INTEGER AS c, count(*) FILTER (grade = 'D')::INTEGER AS d,
         count(*) FILTER (grade = 'F')::INTEGER AS f,
         count(*) FILTER (candidate_as_payer + candidate_as_payee > 0)::INTEGER AS with_candidate,
         count(*) FILTER (verified_as_payer + verified_as_payee > 0)::INTEGER AS with_verified,
         coalesce(sum(candidate_as_payer), 0)::BIGINT AS candidate, coalesce(sum(verified_as_payer), 0)::BIGINT AS verified,
         count(*) FILTER (candidate_as_payer > 0)::INTEGER AS payers,
         count(*) FILTER (candidate_as_payee > 0)::INTEGER AS payees,
         count(*) FILTER (candidate_as_payer > 0 AND candidate_as_payee > 0)::INTEGER AS both_roles,
         count(*) FILTER (is_known_erc8004_agent AND candidate_as_payer + candidate_as_payee > 0)::INTEGER AS identified_agents
    FROM address_scores
),
x402_wallets AS (       -- legacy x402 stats: addresses with candidate payment activity
  SELECT count(*)::INTEGER AS total,
         count(*) FILTER (grade = 'A')::INTEGER AS a, count(*) FILTER (grade = 'B')::INTEGER AS b,
         count(*) FILTER (grade = 'C')::INTEGER AS c, count(*) FILTER (grade = 'D')::INTEGER AS d,
         count(*) FILTER (grade = 'F')::INTEGER AS f,
         round(avg(score), 1) AS avg_score, max(score) AS max_score, min(score) AS min_score,
         count(*) FILTER (entity_type = 'agent')::INTEGER AS agent,
         count(*) FILTER (entity_type = 'hybrid')::INTEGER AS hybrid,
         count(*) FILTER (entity_type = 'service')::INTEGER AS service
    FROM address_scores WHERE candidate_as_payer + candidate_as_payee > 0
),
agent_grades AS (SELECT grade, count(*)::INTEGER AS n FROM agent_scores GROUP BY grade),
run AS (SELECT run_id, model_version, iso(utc_now()) AS as_of FROM run_params)
SELECT run_id, 'v2', to_json({
  'version': 'v2',
  'as_of_time': as_of,
  'data_semantics': 'candidate_payment_activity_with_verified_subset',
  'erc8004': {
    'known_agents': (SELECT count(*)::INTEGER FROM agent_scores),
    'by_chain': (SELECT coalesce(map(list(chain ORDER BY chain), list(n ORDER BY chain)), MAP {}) FROM (SELECT chain, count(*)::INTEGER AS n FROM agent_scores GROUP BY chain)),
    'metadata_quality_distribution': {
      'real': (SELECT count(*)::INTEGER FROM agent_scores WHERE metadata_quality = 'real'),
      'placeholder': (SELECT count(*)::INTEGER FROM agent_scores WHERE metadata_quality = 'placeholder'),
      'unknown': (SELECT count(*)::INTEGER FROM agent_scores WHERE metadata_quality = 'unknown')}},
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
}) FROM run, addresses a
UNION ALL
SELECT run_id, 'x402', to_json({
  'total_wallets': x.total,
  'distribution': {'A': x.a, 'B': x.b, 'C': x.c, 'D': x.d, 'F': x.f},
  'avg_score': x.avg_score,
  'max_score': x.max_score,
  'min_score': x.min_score,
  'wallets_as_payer': a.payers,
  'wallets_as_payee': a.payees,
  'wallets_both_roles': a.both_roles,
  'total_transactions': a.candidate,
  'roles': {'agent': x.agent, 'hybrid': x.hybrid, 'service': x.service},
  'identified_agents': a.identified_agents,
  'data_source': 'x402 candidate payments (EIP-3009 and Permit2) on ' || (SELECT coalesce(string_agg(DISTINCT chain, ', ' ORDER BY chain), 'no chains') FROM chain_scores WHERE candidate_as_payer + candidate_as_payee > 0),
  'version': 'v1'
}) FROM run, addresses a, x402_wallets x
UNION ALL
SELECT run_id, 'erc8004', to_json({
  'total_agents': (SELECT count(*)::INTEGER FROM agent_scores),
  'average_score': (SELECT round(avg(score), 1) FROM agent_scores),
  'max_score': (SELECT max(score) FROM agent_scores),
  'min_score': (SELECT min(score) FROM agent_scores),
  'grade_distribution': (SELECT map(list(g ORDER BY g), list({'count': coalesce(n, 0), 'pct': round(100.0 * coalesce(n, 0) / greatest(1, (SELECT count(*) FROM agent_scores)), 1)} ORDER BY g))
                           FROM (SELECT unnest(['A', 'B', 'C', 'D', 'F']) AS g) LEFT JOIN agent_grades ON grade = g),
  'chains': (SELECT coalesce(map(list(chain ORDER BY chain), list(n ORDER BY chain)), MAP {}) FROM (SELECT chain, count(*)::INTEGER AS n FROM agent_scores GROUP BY chain)),
  'scoring': {'weights': {'identity': 0.2, 'activity': 0.2, 'capability': 0.3, 'reach': 0.05, 'trust': 0.25},
              'version': model_version,
              'dimensions': ['identity', 'activity', 'capability', 'reach', 'trust']}
}) FROM run;
