-- Addresses in scope: the feedback to the agents each owns or is paid for, on all chains (the
-- `reputation` block of its record). The rest of a record is shaped from the serving tables when
-- it is served (sql/serve/address_record.sql). The sums change only with a changed agent's
-- entries or addresses: they are made again for feedback_addresses (sql/score/feedback.sql; all
-- in a full run). For the other addresses in scope only the flag can change, whether some client
-- of their agents carries no weight: this run recomputed some of those weights.
DELETE FROM address_feedback WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM feedback_addresses);

CREATE OR REPLACE TEMP TABLE related_agents AS
WITH agent_addresses AS (  -- the agents each address owns or is paid for
  SELECT owner AS address, chain, agent_id FROM agent_scores
  UNION ALL SELECT agent_wallet, chain, agent_id FROM agent_scores WHERE agent_wallet <> owner
)
-- with whether some client of the agent carries no weight: the record's sybil caveat (weights
-- exist for the clients that left live ratings)
SELECT r.*, EXISTS (SELECT 1 FROM feedback_weights w WHERE w.chain = r.chain AND w.agent_id = r.agent_id AND w.weight = 0) AS unweighted
  FROM (SELECT * FROM agent_addresses WHERE getvariable('is_full')
        UNION ALL SELECT * FROM agent_addresses WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM scope_addresses)) r;

INSERT INTO address_feedback
SELECT (SELECT run_id FROM run_params), r.address,
       count(*)::INTEGER, count(DISTINCT f.client_address)::INTEGER,
       round(avg(f.rating) FILTER (f.tag_group = 'trust'), 1),
       round(avg(f.rating) FILTER (f.tag_group = 'uptime'), 1),
       round(avg(f.rating) FILTER (f.tag_group = 'activity'), 1),
       max(f.given_at),
       bool_or(r.unweighted)
  FROM related_agents r
  JOIN run_feedback f USING (chain, agent_id)
 WHERE getvariable('is_full') OR r.address IN (SELECT address FROM feedback_addresses)
 GROUP BY r.address
 ORDER BY r.address;

CREATE OR REPLACE TEMP TABLE reflagged_feedback AS
SELECT f.* REPLACE ((SELECT run_id FROM run_params) AS run_id, n.unweighted AS weightless_feedback)
  FROM address_feedback f
  JOIN (SELECT address, bool_or(unweighted) AS unweighted FROM related_agents GROUP BY address) n USING (address)
 WHERE NOT getvariable('is_full') AND f.weightless_feedback <> n.unweighted;

DELETE FROM address_feedback WHERE address IN (SELECT address FROM reflagged_feedback);
INSERT INTO address_feedback SELECT * FROM reflagged_feedback;
