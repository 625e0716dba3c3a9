-- GET /api/v1/x402/identified (spec 4.11): payment addresses of registered ERC-8004 agents that
-- have candidate payment activity, one row per (chain, address), with the browse fields and the
-- best agent paid there (highest score, then lowest agent id), best score first. The score and
-- grade are the address's top-level ones, as browse and the lookup show them (an operator's is
-- its operator score); the activity is that chain's. One statement: a row with total and null
-- wallet columns when none match. $1 limit.
WITH identified AS (
  SELECT c.chain, c.address, a.score, a.grade, c.entity_type AS role,
         c.candidate_as_payer + c.candidate_as_payee AS total_txns,
         c.candidate_as_payer AS as_payer, c.candidate_as_payee AS as_payee, c.active_months,
         c.first_candidate_tx_at AS first_seen, c.last_candidate_tx_at AS last_seen,
         c.volume_usdc, c.counterparties_count AS counterparties
    FROM chain_scores c
    JOIN address_scores a USING (address)
   WHERE c.is_known_erc8004_agent AND c.candidate_as_payer + c.candidate_as_payee > 0
),
best_agent AS (
  SELECT DISTINCT ON (chain, coalesce(agent_wallet, owner)) chain, coalesce(agent_wallet, owner) AS address, agent_id, name
    FROM agent_scores ORDER BY chain, coalesce(agent_wallet, owner), score DESC, agent_id
),
page AS (
  SELECT i.*, b.name, b.agent_id FROM identified i
    LEFT JOIN best_agent b USING (chain, address)
   ORDER BY i.score DESC, i.chain, i.address
   LIMIT $1::INTEGER
)
SELECT t.total, p.address AS wallet, p.score, p.grade, p.role, p.total_txns, p.as_payer, p.as_payee, p.active_months,
       p.name, strftime(p.first_seen, '%Y-%m-%dT%H:%M:%SZ') AS first_seen, strftime(p.last_seen, '%Y-%m-%dT%H:%M:%SZ') AS last_seen,
       p.volume_usdc, p.counterparties, p.chain AS erc8004_chain, p.agent_id::VARCHAR AS erc8004_token_id
  FROM (SELECT count(*)::INTEGER AS total FROM identified) t
  LEFT JOIN page p ON true
 ORDER BY p.score DESC, p.chain, p.address;
