-- The `feedback` export: every ERC-8004 feedback entry, from the Reputation Registry's NewFeedback
-- logs and from imported files, with whether it was revoked (FeedbackRevoked, or the file's
-- `revoked`). Entries are matched as scoring matches them (sql/score/feedback.sql): by chain,
-- agent_id, client_address and feedback_index; an imported entry that the chain also has is left
-- out (the chain's row wins).
SELECT f.chain, f.registry, f.agent_id, f.client_address, f.feedback_index,
       f.value, f.value_decimals,
       f.value::DOUBLE / 10 ^ f.value_decimals AS value_scaled,
       f.tag1, f.tag2, f.endpoint, f.feedback_uri,
       b.block_time                           AS given_at,
       EXISTS (SELECT 1 FROM feedback_revocations r
                WHERE r.chain = f.chain AND r.agent_id = f.agent_id
                  AND r.client_address = f.client_address AND r.feedback_index = f.feedback_index) AS revoked,
       'chain'                                AS origin
  FROM feedback f
  LEFT JOIN chain_blocks b ON b.chain = f.chain AND b.source = 'reputation' AND b.block_number = f.block_number
UNION ALL
SELECT i.chain, i.registry, i.agent_id, i.client_address, i.feedback_index,
       i.value, i.value_decimals,
       i.value::DOUBLE / 10 ^ i.value_decimals,
       i.tag1, i.tag2, NULL, NULL,
       i.given_at,
       i.revoked,
       'import'
  FROM imported_feedback i
 WHERE NOT EXISTS (SELECT 1 FROM feedback f
                    WHERE f.chain = i.chain AND f.agent_id = i.agent_id
                      AND f.client_address = i.client_address AND f.feedback_index = i.feedback_index)
