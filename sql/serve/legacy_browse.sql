-- GET /api/v1/x402/browse (spec 4.11): addresses with candidate payment activity and a score of
-- at least 25 (the spec's "25-100"), one row per address over all its chains: top-level score and
-- grade, role = entity type on its best chain, payment counts and volume summed over chains,
-- counterparties and active_months distinct over its chains (all kept in
-- address_scores by each scoring run), the name of the best agent paid at the address. Best score
-- first, then address. One statement: a row with total and null wallet columns when the page is
-- empty.
--   $1 grade, $2 role, $3 min_score (null: no filter), $4 limit, $5 offset.
WITH best_agent AS (
  SELECT DISTINCT ON (coalesce(agent_wallet, owner)) coalesce(agent_wallet, owner) AS address, name
    FROM agent_scores ORDER BY coalesce(agent_wallet, owner), score DESC, chain, agent_id
),
wallets AS (
  SELECT s.address AS wallet, s.score, s.grade, s.entity_type AS role,
         s.candidate_as_payer + s.candidate_as_payee AS total_txns, s.candidate_as_payer AS as_payer,
         s.candidate_as_payee AS as_payee, s.active_months, g.name, s.first_candidate_tx_at AS first_seen,
         s.last_candidate_tx_at AS last_seen, s.volume_usdc, s.counterparties_count AS counterparties
    FROM address_scores s
    LEFT JOIN best_agent g USING (address)
   WHERE s.candidate_as_payer + s.candidate_as_payee > 0 AND s.score >= 25
     AND ($1::VARCHAR IS NULL OR s.grade = $1::VARCHAR)
     AND ($2::VARCHAR IS NULL OR s.entity_type = $2::VARCHAR)
     AND ($3::DOUBLE IS NULL OR s.score >= $3::DOUBLE)
),
page AS (
  SELECT * FROM wallets ORDER BY score DESC, wallet LIMIT $4::INTEGER OFFSET $5::INTEGER
)
SELECT t.total, p.wallet, p.score, p.grade, p.role, p.total_txns, p.as_payer, p.as_payee, p.active_months, p.name,
       strftime(p.first_seen, '%Y-%m-%dT%H:%M:%SZ') AS first_seen, strftime(p.last_seen, '%Y-%m-%dT%H:%M:%SZ') AS last_seen,
       p.volume_usdc, p.counterparties
  FROM (SELECT count(*)::INTEGER AS total FROM wallets) t
  LEFT JOIN page p ON true
 ORDER BY p.score DESC, p.wallet;
