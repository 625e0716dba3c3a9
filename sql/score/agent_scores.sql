-- Agents in scope: the five dimensions and the score of each registered agent, from its
-- registration file and evidence (identity, declared capability), the payments of its payment
-- address (activity, reach, demonstrated capability) and its weighted feedback (trust).
-- A full run replaces every row (sql/score/clear_full.sql; an agent a reorg removed goes).

-- How many entries and clients rate each agent in scope whose feedback did not change: as the
-- previous run counted them (read before its rows go). Only changed agents are counted again.
CREATE OR REPLACE TEMP TABLE kept_feedback_counts AS
SELECT chain, agent_id, feedback_count, client_count FROM agent_scores s
  SEMI JOIN scope_agents USING (chain, agent_id)
  ANTI JOIN changed_agents USING (chain, agent_id)
 WHERE NOT getvariable('is_full');

DELETE FROM agent_scores WHERE NOT getvariable('is_full') AND (chain, agent_id) IN (SELECT (chain, agent_id) FROM scope_agents);

-- The clients' weights this run recomputed (sql/score/weights.sql): only rows that changed are
-- rewritten (and carry this run's id); a client no longer rating the agent loses its row. The
-- stored rows of those clients are read in one scan, with their row ids for the delete.
CREATE OR REPLACE TEMP TABLE stored_weights AS
SELECT w.rowid AS row_id, w.* FROM feedback_weights w
  SEMI JOIN weight_clients c ON c.chain = w.chain AND c.agent_id = w.agent_id AND c.client_address = w.client_address
 WHERE NOT getvariable('is_full');

-- A row is unchanged when every column but the run id is equal.
DELETE FROM feedback_weights f
 USING (SELECT row_id FROM stored_weights
          ANTI JOIN run_feedback_weights USING (chain, agent_id, client_address, registry, feedback_count, value_avg, weight, weight_reason)) d
 WHERE f.rowid = d.row_id;

INSERT INTO feedback_weights
SELECT (SELECT run_id FROM run_params), chain, registry, agent_id, client_address, feedback_count, value_avg, weight, weight_reason
  FROM run_feedback_weights
  ANTI JOIN stored_weights USING (chain, agent_id, client_address, registry, feedback_count, value_avg, weight, weight_reason);

INSERT INTO agent_scores
WITH feedback_facts AS (
  SELECT chain, agent_id, count(*)::INTEGER AS feedback_count, count(DISTINCT client_address)::INTEGER AS client_count
    FROM (SELECT * FROM run_feedback WHERE getvariable('is_full')
          UNION ALL SELECT f.* FROM run_feedback f SEMI JOIN changed_agents USING (chain, agent_id) WHERE NOT getvariable('is_full'))
   GROUP BY chain, agent_id
  UNION ALL
  SELECT * FROM kept_feedback_counts
),
weighted AS (         -- every client's weight: those this run recomputed, and the rest as kept
  SELECT chain, agent_id, sum(weight::DECIMAL(18, 6))::DOUBLE AS feedback_weight,
         sum(weight::DECIMAL(18, 6) * value_avg::DECIMAL(18, 6))::DOUBLE AS weighted_sum
    FROM feedback_weights w SEMI JOIN scope_agents s ON s.chain = w.chain AND s.agent_id = w.agent_id
   GROUP BY chain, agent_id
),
agents_in_scope AS MATERIALIZED (
  SELECT a.* FROM registered_agents a SEMI JOIN scope_agents s ON s.chain = a.chain AND s.agent_id = a.agent_id
),
sharing AS (       -- how many agents are paid at each of their payment addresses on the chain, so
                   -- share its payment data (the spec's agents_sharing_owner): those addresses' only
  SELECT chain, pay_to, count(*)::INTEGER AS agents_sharing_owner
    FROM registered_agents a SEMI JOIN agents_in_scope s ON s.chain = a.chain AND s.pay_to = a.pay_to
   GROUP BY chain, pay_to
),
dimensions AS (
  SELECT a.*, n.agents_sharing_owner,
         coalesce(f.candidate_as_payer + f.candidate_as_payee, 0) AS candidate_total,
         coalesce(f.verified_as_payer + f.verified_as_payee, 0) AS verified_total,
         coalesce(ff.feedback_count, 0) AS feedback_count, coalesce(ff.client_count, 0) AS client_count,
         coalesce(w.feedback_weight, 0) AS feedback_weight,
         CASE WHEN w.feedback_weight > 0 THEN round(w.weighted_sum / w.feedback_weight, 2) END AS weighted_feedback_avg,
         identity_dimension(a.metadata_quality, a.ens_name, a.website_url, a.website_reachable, a.github_url, a.github_stars) AS identity,
         activity_dimension(coalesce(f.verified_as_payer + f.verified_as_payee, 0), coalesce(f.candidate_as_payer + f.candidate_as_payee, 0),
                            coalesce(f.active_days, 0), coalesce(f.active_months, 0)) AS activity,
         capability_dimension(declared_capability(a.service_count, a.x402_support, a.has_a2a_agent_card,
                                                  a.website_mentions_mcp, a.website_mentions_x402, a.active),
                              coalesce(f.verified_as_payee, 0)) AS capability,
         reach_dimension(coalesce(f.verified_counterparties_count, 0), coalesce(f.counterparties_count, 0)) AS reach,
         trust_dimension(coalesce(w.weighted_sum, 0), coalesce(w.feedback_weight, 0)) AS trust
    FROM agents_in_scope a
    JOIN sharing n ON n.chain = a.chain AND n.pay_to = a.pay_to
    LEFT JOIN run_facts() f ON f.chain = a.chain AND f.address = a.pay_to
    LEFT JOIN feedback_facts ff ON ff.chain = a.chain AND ff.agent_id = a.agent_id
    LEFT JOIN weighted w ON w.chain = a.chain AND w.agent_id = a.agent_id
),
scored AS (
  SELECT *, v1_score(identity, activity, capability, reach, trust) AS score FROM dimensions
)
SELECT (SELECT run_id FROM run_params), chain, registry, agent_id, owner, agent_wallet, name, description, agent_uri,
       metadata_quality, service_count > 0 AS has_endpoint, github_url, registered_at, agents_sharing_owner,
       score, grade_of(score) AS grade,
       score_confidence(candidate_total, CASE metadata_quality WHEN 'real' THEN 1 WHEN 'placeholder' THEN 0.5 ELSE 0.25 END, feedback_weight),
       identity, activity, capability, reach, trust,
       'agent' AS entity_type,
       feedback_count, client_count, feedback_weight, weighted_feedback_avg,
       candidate_total > 0 AS has_candidate_payment_activity, verified_total > 0 AS has_verified_payment_activity
  FROM scored;
