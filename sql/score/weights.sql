-- How much each client counts whose weight can have changed (docs/scoring.md, "Feedback weight"):
-- the clients of weight_clients (sql/score/scope.sql; every client in a full run).

-- One row per (agent, client) with a rating. A client counts at most 1 however many entries it
-- leaves; how much it counts depends on evidence that it is a real customer:
--   self_feedback       the agent's owner or payment address rating itself       0
--   paid_verified       paid the agent's payment address through a facilitator   1
--   paid_candidate      paid it, but no payment was facilitator-settled           0.5
--   active_elsewhere    facilitator-settled payments with others only             0.25 × saturate(verified counterparties, 10)
--   no_payment_history  none of the above: a fresh address, as sybils are         0
CREATE OR REPLACE TEMP TABLE run_feedback_weights AS
WITH per_client AS (  -- the clients whose weight this run recomputes (sql/score/scope.sql): all in a full run
  SELECT chain, agent_id, client_address, count(*)::INTEGER AS feedback_count, round(avg(rating), 4)::DOUBLE AS value_avg
    FROM (SELECT * FROM rated_feedback WHERE getvariable('is_full')
          UNION ALL
          SELECT f.* FROM rated_feedback f
            SEMI JOIN weight_clients w ON w.chain = f.chain AND w.agent_id = f.agent_id AND w.client_address = f.client_address
           WHERE NOT getvariable('is_full'))
   WHERE rating IS NOT NULL
   GROUP BY chain, agent_id, client_address
),
paid AS (            -- clients' payments to the agent's payment address: distinct (payer, payee)
                     -- pairs first, so an address paid for many agents is not multiplied by them
  SELECT a.chain, a.agent_id, p.payer AS client_address, p.verified
    FROM (SELECT chain, payer, payee, verified_payments > 0 AS verified
            FROM (SELECT * FROM payment_pairs WHERE getvariable('is_full')
                  UNION ALL SELECT * FROM current_pairs() WHERE NOT getvariable('is_full'))  -- sql/score/pairs.sql
           WHERE payer IN (SELECT client_address FROM per_client)) p
    JOIN registered_agents a ON a.chain = p.chain AND a.pay_to = p.payee
   WHERE (a.chain, a.agent_id) IN (SELECT (chain, agent_id) FROM scope_agents)
),
judged AS (
  SELECT c.*, a.registry,
         CASE WHEN c.client_address IN (a.owner, a.pay_to)       THEN 'self_feedback'
              WHEN p.verified                                    THEN 'paid_verified'
              WHEN p.verified IS NOT NULL                        THEN 'paid_candidate'
              WHEN coalesce(cf.verified_counterparties, 0) > 0   THEN 'active_elsewhere'
              ELSE 'no_payment_history' END                      AS weight_reason,
         coalesce(cf.verified_counterparties, 0)                 AS client_verified_counterparties
    FROM per_client c
    JOIN registered_agents a USING (chain, agent_id)
    LEFT JOIN paid p USING (chain, agent_id, client_address)
    LEFT JOIN (SELECT chain, address, verified_counterparties_count AS verified_counterparties FROM run_facts()) cf
           ON cf.chain = c.chain AND cf.address = c.client_address
)
SELECT chain, registry, agent_id, client_address, feedback_count, value_avg,
       round(CASE weight_reason WHEN 'paid_verified' THEN 1.0
                                WHEN 'paid_candidate' THEN 0.5
                                WHEN 'active_elsewhere' THEN 0.25 * saturate(client_verified_counterparties, 10)
                                ELSE 0.0 END, 3) AS weight,
       weight_reason
  FROM judged;
