-- Per-chain scores of one address from the newest scoring run. $1 is the address.
SELECT s.chain, s.score, s.grade, s.confidence, s.entity_type,
       s.candidate_as_payer, s.candidate_as_payee, s.verified_as_payer, s.verified_as_payee,
       s.counterparties_count, s.active_days, s.active_months, s.volume_usdc,
       strftime(s.first_candidate_tx_at, '%Y-%m-%dT%H:%M:%SZ') AS first_candidate_tx_at,
       strftime(s.last_candidate_tx_at,  '%Y-%m-%dT%H:%M:%SZ') AS last_candidate_tx_at,
       strftime(s.first_verified_tx_at,  '%Y-%m-%dT%H:%M:%SZ') AS first_verified_tx_at,
       strftime(s.last_verified_tx_at,   '%Y-%m-%dT%H:%M:%SZ') AS last_verified_tx_at,
       r.model_version,
       strftime(r.scored_at, '%Y-%m-%dT%H:%M:%SZ') AS scored_at
  FROM address_scores s
  JOIN scoring_runs r ON r.run_id = s.run_id
 WHERE s.run_id = (SELECT max(run_id) FROM scoring_runs)
   AND s.address = $1
 ORDER BY s.score DESC, s.chain;
