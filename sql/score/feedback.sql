-- ERC-8004 feedback: live entries (revoked ones dropped) with normalised ratings, kept between
-- runs, and the feedback to the agents paid at each address (chain_feedback). All of it changes
-- only with a changed agent: a run without any runs sql/score/feedback_unchanged.sql instead
-- (pipeline/score/run.ts).

-- Keeps rated_feedback (migration 026): the entries of the agents this run rebuilds (every
-- agent in a full run, else changed_agents: new feedback, revocations or imports), with the
-- chain's entry winning over an imported one with the same key.
DELETE FROM rated_feedback f USING changed_agents c
 WHERE NOT getvariable('is_full') AND c.chain = f.chain AND c.agent_id = f.agent_id;

INSERT INTO rated_feedback
WITH chain_entries AS (  -- the columns used only (the URIs and hashes are not)
  SELECT chain, agent_id, client_address, feedback_index, tag1, value, value_decimals, block_number FROM agent_rows('feedback')
),
entries AS (
  SELECT f.chain, f.agent_id, f.client_address, f.feedback_index, f.tag1, f.value, f.value_decimals,
         b.block_time AS given_at
    FROM chain_entries f
    LEFT JOIN chain_blocks b ON b.chain = f.chain AND b.source = 'reputation' AND b.block_number = f.block_number
   WHERE NOT EXISTS (SELECT 1 FROM feedback_revocations r
                      WHERE r.chain = f.chain AND r.agent_id = f.agent_id
                        AND r.client_address = f.client_address AND r.feedback_index = f.feedback_index)
  UNION ALL
  SELECT i.chain, i.agent_id, i.client_address, i.feedback_index, i.tag1, i.value, i.value_decimals, i.given_at
    FROM agent_rows('imported_feedback') i
   WHERE NOT i.revoked
     AND NOT EXISTS (SELECT 1 FROM chain_entries f
                      WHERE f.chain = i.chain AND f.agent_id = i.agent_id
                        AND f.client_address = i.client_address AND f.feedback_index = i.feedback_index)
)
-- Ratings are DECIMAL so sums and averages do not depend on the order rows are added in.
SELECT e.*, feedback_rating(e.tag1, e.value, e.value_decimals)::DECIMAL(18, 6) AS rating, feedback_group(e.tag1) AS tag_group
  FROM entries e;

-- The addresses whose feedback blocks (chain_feedback here, address_feedback in
-- sql/score/records.sql) this run sums again: the payment addresses and owners, now and in the
-- previous run, of the changed agents. Every other address's agents and their entries are as the
-- previous run found them (unused in a full run, which sums them all).
CREATE OR REPLACE TEMP TABLE feedback_addresses AS
SELECT pay_to AS address FROM registered_agents SEMI JOIN changed_agents USING (chain, agent_id)
UNION SELECT owner FROM registered_agents SEMI JOIN changed_agents USING (chain, agent_id)
UNION SELECT coalesce(agent_wallet, owner) FROM agent_scores SEMI JOIN changed_agents USING (chain, agent_id)
UNION SELECT owner FROM agent_scores SEMI JOIN changed_agents USING (chain, agent_id);

-- The entries those sums read: every agent's paid at or owned by such an address (all in a full run).
CREATE OR REPLACE TEMP TABLE run_feedback AS
SELECT * FROM rated_feedback WHERE getvariable('is_full')
UNION ALL
SELECT f.* FROM rated_feedback f
  SEMI JOIN (SELECT chain, agent_id FROM registered_agents
              WHERE pay_to IN (SELECT address FROM feedback_addresses) OR owner IN (SELECT address FROM feedback_addresses)) a
    ON a.chain = f.chain AND a.agent_id = f.agent_id
 WHERE NOT getvariable('is_full');

-- Keeps chain_feedback (migration 028): per (chain, address), the feedback to the agents paid there.
DELETE FROM chain_feedback WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM feedback_addresses);

INSERT INTO chain_feedback
SELECT f.chain, a.pay_to,
       count(*)::INTEGER, count(DISTINCT f.client_address)::INTEGER,
       round(avg(f.rating) FILTER (f.tag_group = 'trust'), 1),
       round(avg(f.rating) FILTER (f.tag_group = 'uptime'), 1),
       round(avg(f.rating) FILTER (f.tag_group = 'activity'), 1),
       max(f.given_at)
  FROM run_feedback f JOIN registered_agents a USING (chain, agent_id)
 WHERE getvariable('is_full') OR a.pay_to IN (SELECT address FROM feedback_addresses)
 GROUP BY f.chain, a.pay_to;
