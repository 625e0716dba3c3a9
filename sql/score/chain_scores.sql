-- Addresses in scope, per chain: facts, dimensions, score and classification. An address that is
-- the payment address of registered agents takes the dimensions of its best agent; any other
-- address has no registered identity or declared capability, and neutral trust.
-- A full run replaces every row: an address no longer in any input loses its score. It deletes
-- the old rows after it wrote the new ones, whose facts it read from them (sql/score/facts.sql).
-- Any other run replaces the rows of its scope, found by sql/score/payment_facts.sql in one scan
-- with their row ids.
DELETE FROM chain_scores s USING stored_chain_rows r WHERE s.rowid = r.row_id AND r.replaced;

INSERT INTO chain_scores
WITH agent_pay_to AS (  -- agent scores after this run's update, with their payment address
  SELECT s.*, coalesce(s.agent_wallet, s.owner) AS pay_to FROM agent_scores s
),
agents_now AS (       -- those paid at or owned by an address in scope: the rest change no row here
  SELECT * FROM agent_pay_to WHERE getvariable('is_full')
  UNION ALL SELECT * FROM agent_pay_to
   WHERE NOT getvariable('is_full')
     AND (pay_to IN (SELECT address FROM scope_addresses) OR owner IN (SELECT address FROM scope_addresses))
),
agent_addresses AS (  -- paid at or owning a registered agent
  SELECT chain, pay_to AS address FROM agents_now UNION SELECT chain, owner FROM agents_now
),
agent_addresses_in_scope AS (
  SELECT * FROM agent_addresses WHERE getvariable('is_full')
  UNION ALL SELECT * FROM agent_addresses WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM scope_addresses)
),
facts AS (            -- run_facts() also holds clients whose weight this run recomputes (sql/score/scope.sql)
  SELECT * FROM run_facts() WHERE getvariable('is_full')
  UNION ALL SELECT * FROM run_facts() WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM scope_addresses)
),
population AS (       -- the facts of each (chain, address) in scope, and a row without facts for an
                      -- agent's address that has none: the facts are the driving rows, not joined in
  SELECT * FROM facts
  UNION ALL BY NAME
  SELECT chain, address FROM agent_addresses_in_scope ANTI JOIN facts USING (chain, address)
),
with_known AS (       -- asked about, nothing indexed: one row on the address family's default chain
  SELECT * FROM population
  UNION ALL BY NAME
  SELECT CASE k.family WHEN 'solana' THEN 'solana' ELSE (SELECT evm_chain FROM run_params) END AS chain, k.address
    FROM (SELECT DISTINCT address, family FROM known_addresses WHERE getvariable('is_full')
          UNION SELECT address, family FROM known_addresses
           WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM scope_addresses)) k
    ANTI JOIN population p USING (address)
),
best_agent AS (
  SELECT DISTINCT ON (chain, pay_to) chain, pay_to AS address, agent_id, score, confidence,
         identity, activity, capability, reach, trust, feedback_weight
    FROM agents_now ORDER BY chain, pay_to, score DESC, agent_id
),
best_identity AS (   -- their registration facts: a join with every agent built its hash table on the rows
  SELECT a.* FROM registered_agents a SEMI JOIN best_agent b ON b.chain = a.chain AND b.agent_id = a.agent_id
),
paid_agents AS (SELECT chain, pay_to AS address, count(*)::INTEGER AS n FROM agents_now GROUP BY chain, pay_to),
owned_agents AS (SELECT chain, owner AS address, count(*)::INTEGER AS n FROM agents_now GROUP BY chain, owner),
rows AS (
  SELECT f.chain, f.address,
         coalesce(f.candidate_as_payer, 0) AS candidate_as_payer, coalesce(f.candidate_as_payee, 0) AS candidate_as_payee,
         coalesce(f.verified_as_payer, 0) AS verified_as_payer, coalesce(f.verified_as_payee, 0) AS verified_as_payee,
         coalesce(f.counterparties_count, 0) AS counterparties_count,
         coalesce(f.verified_counterparties_count, 0) AS verified_counterparties_count,
         coalesce(f.active_days, 0) AS active_days, coalesce(f.active_months, 0) AS active_months,
         coalesce(f.volume_usdc, 0) AS volume_usdc, coalesce(f.verified_volume_usdc, 0) AS verified_volume_usdc,
         f.first_candidate_tx_at, f.last_candidate_tx_at, f.first_verified_tx_at, f.last_verified_tx_at,
         b.agent_id AS best_agent_id, b.score AS agent_score, b.confidence AS agent_confidence,
         b.identity AS agent_identity, b.activity AS agent_activity, b.capability AS agent_capability,
         b.reach AS agent_reach, b.trust AS agent_trust, coalesce(b.feedback_weight, 0) AS feedback_weight,
         coalesce(pa.n, 0) AS agent_count, coalesce(oa.n, 0) AS owned_count,
         f.address IN (SELECT address FROM facilitators) AS is_facilitator,
         -- a row without facts (its fact columns are null: facts rows always have them)
         f.candidate_as_payer IS NULL AND pa.n IS NULL AND oa.n IS NULL AS not_indexed
    FROM with_known f
    LEFT JOIN best_agent b USING (chain, address)
    LEFT JOIN paid_agents pa USING (chain, address)
    LEFT JOIN owned_agents oa USING (chain, address)
),
scored AS (
  SELECT r.*,
         candidate_as_payer + candidate_as_payee AS candidate_total,
         coalesce(agent_identity, 0) AS identity,
         coalesce(agent_activity, activity_dimension(verified_as_payer + verified_as_payee, candidate_as_payer + candidate_as_payee, active_days, active_months)) AS activity,
         coalesce(agent_capability, capability_dimension(0, verified_as_payee)) AS capability,
         coalesce(agent_reach, reach_dimension(verified_counterparties_count, counterparties_count)) AS reach,
         coalesce(agent_trust, trust_dimension(0, 0)) AS trust
    FROM rows r
),
classified AS (
  SELECT s.*,
         coalesce(agent_score, v1_score(identity, activity, capability, reach, trust)) AS score,
         CASE WHEN agent_count > 0                                    THEN 'agent'
              WHEN candidate_as_payer > 0 AND candidate_as_payee > 0  THEN 'hybrid'
              WHEN candidate_as_payee > 0                             THEN 'service'
              WHEN verified_as_payer > 0                              THEN 'agent'
              WHEN candidate_as_payer > 0 OR owned_count > 0          THEN 'wallet'
              ELSE 'unknown' END AS entity_type,
         round(CASE WHEN agent_count > 0                                   THEN 0.95
                    WHEN candidate_as_payer > 0 AND candidate_as_payee > 0 THEN 0.8
                    WHEN candidate_as_payee > 0                            THEN 0.5 + 0.4 * saturate(counterparties_count, 20)
                    WHEN verified_as_payer > 0                             THEN 0.6 + 0.3 * saturate(verified_as_payer, 50)
                    WHEN candidate_as_payer > 0 OR owned_count > 0         THEN 0.5
                    ELSE 0 END, 2) AS entity_confidence,
         list_filter([
           CASE WHEN agent_count > 0 THEN 'registered_erc8004_agent' END,
           CASE WHEN owned_count > 0 THEN 'owns_erc8004_agents' END,
           CASE WHEN is_facilitator THEN 'known_facilitator' END,
           CASE WHEN candidate_as_payer > 0 THEN 'sends_candidate_payments' END,
           CASE WHEN candidate_as_payee > 0 THEN 'receives_candidate_payments' END,
           CASE WHEN verified_as_payer > 0 THEN 'sends_verified_payments' END,
           CASE WHEN verified_as_payee > 0 THEN 'receives_verified_payments' END,
           CASE WHEN candidate_total = 0 AND NOT not_indexed THEN 'no_payment_activity' END,
           CASE WHEN not_indexed THEN 'no_indexed_activity' END
         ], x -> x IS NOT NULL) AS reasons
    FROM scored s
)
SELECT (SELECT run_id FROM run_params), c.chain, c.address,
       c.score, grade_of(c.score) AS grade,
       coalesce(c.agent_confidence, score_confidence(c.candidate_total, 0, 0)) AS confidence,
       c.identity, c.activity, c.capability, c.reach, c.trust,
       c.entity_type, c.entity_confidence,
       c.agent_count > 0 OR c.owned_count > 0 OR c.is_facilitator AS is_known,
       c.agent_count > 0 AS is_known_erc8004_agent,
       c.reasons, c.agent_count,
       c.candidate_as_payer, c.candidate_as_payee, c.verified_as_payer, c.verified_as_payee,
       c.counterparties_count, c.verified_counterparties_count, c.active_days, c.active_months,
       c.volume_usdc, c.verified_volume_usdc,
       c.first_candidate_tx_at, c.last_candidate_tx_at, c.first_verified_tx_at, c.last_verified_tx_at,
       a.ens_name, a.website_url, a.github_url, a.metadata_kind, a.metadata_quality,
       a.has_a2a_agent_card, a.website_reachable, a.website_mentions_mcp, a.website_mentions_x402, a.github_stars,
       coalesce(fb.feedback_count, 0), coalesce(fb.client_count, 0), fb.trust_avg, fb.uptime_avg, fb.activity_avg,
       fb.last_feedback_at, c.feedback_weight
  FROM classified c
  LEFT JOIN best_identity a ON a.chain = c.chain AND a.agent_id = c.best_agent_id
  -- kept by sql/score/feedback.sql; filtered to the scope first so that in an incremental run the
  -- join's hash table is built on these few rows, not on the wide rows above
  LEFT JOIN (SELECT * FROM chain_feedback WHERE getvariable('is_full')
             UNION ALL SELECT * FROM chain_feedback WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM scope_addresses)) fb
         ON fb.chain = c.chain AND fb.address = c.address
 ORDER BY c.address, c.chain;

DELETE FROM chain_scores WHERE getvariable('is_full') AND run_id <> getvariable('run_id');
