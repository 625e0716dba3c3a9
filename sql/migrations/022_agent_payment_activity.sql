-- Whether an agent's payment address has candidate and verified x402 payments (on the agent's
-- chain), kept with the agent's score so agent browse (GET /v1/agents, sql/serve/agents.sql) filters
-- and shows them from agent_scores alone instead of joining every agent to a million chain_scores
-- rows on each page. Existing rows are filled from chain_scores, as sql/score/agent_scores.sql
-- fills new ones from the same facts.
ALTER TABLE agent_scores ADD COLUMN has_candidate_payment_activity BOOLEAN;
ALTER TABLE agent_scores ADD COLUMN has_verified_payment_activity BOOLEAN;

UPDATE agent_scores a
   SET has_candidate_payment_activity = coalesce(c.candidate_as_payer + c.candidate_as_payee > 0, false),
       has_verified_payment_activity = coalesce(c.verified_as_payer + c.verified_as_payee > 0, false)
  FROM (SELECT s.chain, s.agent_id, c.candidate_as_payer, c.candidate_as_payee, c.verified_as_payer, c.verified_as_payee
          FROM agent_scores s
          LEFT JOIN chain_scores c ON c.chain = s.chain AND c.address = coalesce(s.agent_wallet, s.owner)) c
 WHERE c.chain = a.chain AND c.agent_id = a.agent_id;
