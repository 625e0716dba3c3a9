-- Incremental runs: what changed since the previous run. Reads `run_params` (the previous run's
-- watermarks) and `previous_cursors` (its block per chain and source; -1 for a source it had not
-- seen). Everything newer than those is new input; so are the payments this run added to or
-- removed from scored_payments (sql/score/payments.sql), which include an imported payment a
-- chain row replaced. Transfers above the watermarks are read as well: an on-demand run in
-- between brought scored_payments up to date without rescoring what it found.
-- payment_floor and the payments_from variable come from sql/score/payments.sql; the constant
-- lets zone maps skip the older blocks of token_transfers.
CREATE OR REPLACE TEMP TABLE changed_addresses AS
WITH new_transfers AS (
  SELECT t.from_address, t.to_address FROM token_transfers t
    LEFT JOIN payment_floor f ON f.chain = t.chain
   WHERE t.block_number > coalesce(f.block_number, -1) AND t.block_number > getvariable('payments_from')
  UNION ALL
  SELECT from_address, to_address FROM imported_transfers
   WHERE import_id IN (SELECT import_id FROM imports WHERE imported_at > (SELECT imports_through FROM run_params))
)
SELECT from_address AS address FROM new_transfers
UNION SELECT to_address FROM new_transfers
UNION SELECT unnest([payer, payee]) FROM gone_payments
UNION SELECT unnest([payer, payee]) FROM new_payments
UNION SELECT address FROM known_addresses WHERE first_seen_at > (SELECT known_through FROM run_params);

CREATE OR REPLACE TEMP TABLE changed_agents AS
WITH new_imports AS (
  SELECT import_id FROM imports WHERE imported_at > (SELECT imports_through FROM run_params)
),
identity_rows AS (
  SELECT chain, agent_id, block_number FROM agent_registrations
  UNION ALL SELECT chain, agent_id, block_number FROM agent_uri_updates
  UNION ALL SELECT chain, agent_id, block_number FROM agent_metadata
  UNION ALL SELECT chain, agent_id, block_number FROM agent_transfers
),
reputation_rows AS (
  SELECT chain, agent_id, block_number FROM feedback
  UNION ALL SELECT chain, agent_id, block_number FROM feedback_revocations
)
SELECT i.chain, i.agent_id FROM identity_rows i
  LEFT JOIN previous_cursors p ON p.chain = i.chain AND p.source = 'identity'
 WHERE i.block_number > coalesce(p.block_number, -1)
UNION
SELECT r.chain, r.agent_id FROM reputation_rows r
  LEFT JOIN previous_cursors p ON p.chain = r.chain AND p.source = 'reputation'
 WHERE r.block_number > coalesce(p.block_number, -1)
UNION SELECT chain, agent_id FROM imported_agents   WHERE import_id IN (SELECT import_id FROM new_imports)
UNION SELECT chain, agent_id FROM imported_feedback WHERE import_id IN (SELECT import_id FROM new_imports)
UNION SELECT chain, agent_id FROM registration_files WHERE fetched_at > (SELECT files_through FROM run_params)
UNION SELECT chain, agent_id FROM agent_evidence     WHERE checked_at > (SELECT evidence_through FROM run_params);
