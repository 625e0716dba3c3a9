-- Stats of this run over the whole serving state: `v2` for GET /v1/stats, `x402` and `erc8004`
-- for the legacy /api/v1 endpoints (spec 4.9, 4.11). Each payment is counted once, on its payer.
INSERT INTO run_stats
WITH roles AS (         -- per address, in one pass: its entity type on its best chain (highest
                        -- score, then chain name) and the roles it has on any chain
  SELECT address, arg_min(entity_type, {'score': -score, 'chain': chain}) AS entity_type,
         bool_or(candidate_as_payer > 0) AS payer, bool_or(candidate_as_payee > 0) AS payee,
         bool_or(verified_as_payer + verified_as_payee > 0) AS verified,
         bool_or(is_known_erc8004_agent) AS agent
    FROM chain_scores GROUP BY address
),
best_chain AS (SELECT address, entity_type FROM roles),
payments AS (
  SELECT sum(candidate_as_payer)::BIGINT AS candidate, sum(verified_as_payer)::BIGINT AS verified FROM chain_scores
),
grades AS (SELECT grade, count(*)::INTEGER AS n FROM address_scores GROUP BY grade),
agent_grades AS (SELECT grade, count(*)::INTEGER AS n FROM agent_scores GROUP BY grade),
x402_wallets AS (      -- legacy x402 stats: addresses with candidate payment activity
  SELECT s.address, s.score, s.grade, r.entity_type
    FROM address_scores s JOIN roles r USING (address)
   WHERE r.payer OR r.payee
),
x402_grades AS (SELECT grade, count(*)::INTEGER AS n FROM x402_wallets GROUP BY grade),
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
    'total_addresses': (SELECT count(*)::INTEGER FROM (SELECT address FROM address_scores UNION SELECT address FROM known_addresses)),
    'scored_addresses': (SELECT count(*)::INTEGER FROM address_scores),
    'entity_distribution': {
      'agent': (SELECT count(*)::INTEGER FROM best_chain WHERE entity_type = 'agent'),
      'service': (SELECT count(*)::INTEGER FROM best_chain WHERE entity_type = 'service'),
      'wallet': (SELECT count(*)::INTEGER FROM best_chain WHERE entity_type = 'wallet'),
      'hybrid': (SELECT count(*)::INTEGER FROM best_chain WHERE entity_type = 'hybrid'),
      'unknown': (SELECT count(*)::INTEGER FROM best_chain WHERE entity_type = 'unknown')},
    'score_distribution': {
      'A': coalesce((SELECT n FROM grades WHERE grade = 'A'), 0), 'B': coalesce((SELECT n FROM grades WHERE grade = 'B'), 0),
      'C': coalesce((SELECT n FROM grades WHERE grade = 'C'), 0), 'D': coalesce((SELECT n FROM grades WHERE grade = 'D'), 0),
      'F': coalesce((SELECT n FROM grades WHERE grade = 'F'), 0)}},
  'payments': {
    'addresses_with_candidate_payment_activity': (SELECT count(*)::INTEGER FROM roles WHERE payer OR payee),
    'addresses_with_verified_payment_activity': (SELECT count(*)::INTEGER FROM roles WHERE verified),
    'total_candidate_transactions': (SELECT coalesce(candidate, 0) FROM payments),
    'total_verified_transactions': (SELECT coalesce(verified, 0) FROM payments),
    'verification_status_summary': {
      'candidate': (SELECT coalesce(candidate - verified, 0) FROM payments),
      'verified': (SELECT coalesce(verified, 0) FROM payments)}},
  'caveats': ['Candidate payments are EIP-3009 authorised transfers and Permit2 settlements; verified ones were submitted by known x402 facilitators.',
              'verification_status_summary counts each candidate payment once: `candidate` those not verified, `verified` the rest.']
}) FROM run
UNION ALL
SELECT run_id, 'x402', to_json({
  'total_wallets': (SELECT count(*)::INTEGER FROM x402_wallets),
  'distribution': {
    'A': coalesce((SELECT n FROM x402_grades WHERE grade = 'A'), 0), 'B': coalesce((SELECT n FROM x402_grades WHERE grade = 'B'), 0),
    'C': coalesce((SELECT n FROM x402_grades WHERE grade = 'C'), 0), 'D': coalesce((SELECT n FROM x402_grades WHERE grade = 'D'), 0),
    'F': coalesce((SELECT n FROM x402_grades WHERE grade = 'F'), 0)},
  'avg_score': (SELECT round(avg(score), 1) FROM x402_wallets),
  'max_score': (SELECT max(score) FROM x402_wallets),
  'min_score': (SELECT min(score) FROM x402_wallets),
  'wallets_as_payer': (SELECT count(*)::INTEGER FROM roles WHERE payer),
  'wallets_as_payee': (SELECT count(*)::INTEGER FROM roles WHERE payee),
  'wallets_both_roles': (SELECT count(*)::INTEGER FROM roles WHERE payer AND payee),
  'total_transactions': (SELECT coalesce(candidate, 0) FROM payments),
  'roles': {
    'agent': (SELECT count(*)::INTEGER FROM x402_wallets WHERE entity_type = 'agent'),
    'hybrid': (SELECT count(*)::INTEGER FROM x402_wallets WHERE entity_type = 'hybrid'),
    'service': (SELECT count(*)::INTEGER FROM x402_wallets WHERE entity_type = 'service')},
  'identified_agents': (SELECT count(*)::INTEGER FROM roles WHERE agent AND (payer OR payee)),
  'data_source': 'x402 candidate payments (EIP-3009 and Permit2) on ' || (SELECT coalesce(string_agg(DISTINCT chain, ', ' ORDER BY chain), 'no chains') FROM chain_scores WHERE candidate_as_payer + candidate_as_payee > 0),
  'version': 'v1'
}) FROM run
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
