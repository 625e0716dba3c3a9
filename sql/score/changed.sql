-- Incremental runs: the addresses whose inputs changed since the previous run (the agents':
-- sql/score/changed_agents.sql). Reads `run_params` (the previous run's
-- watermarks) and `previous_cursors` (its block per chain and source; -1 for a source it had not
-- seen). Everything newer than those is new input; so are the payments this run added to or
-- removed from scored_payments (sql/score/payments.sql), which include an imported payment a
-- chain row replaced. Transfers above the watermarks are read as well: an on-demand run in
-- between brought scored_payments up to date without rescoring what it found; it left the
-- addresses of what it added or removed in pending_addresses, taken here.
-- payment_floor and above_floor() come from sql/score/payments.sql; its constant lets zone maps
-- skip the older blocks of token_transfers.
CREATE OR REPLACE TEMP TABLE changed_addresses AS
WITH new_transfers AS (
  SELECT t.from_address, t.to_address FROM token_transfers t
    LEFT JOIN payment_floor f ON f.chain = t.chain
   WHERE above_floor(t.block_number, f.block_number)
  UNION ALL
  SELECT from_address, to_address FROM imported_transfers
   WHERE import_id IN (SELECT import_id FROM imports WHERE imported_at > (SELECT imports_through FROM run_params))
)
SELECT from_address AS address FROM new_transfers
UNION SELECT to_address FROM new_transfers
UNION SELECT address FROM paid_addresses
UNION SELECT address FROM known_addresses WHERE first_seen_at > (SELECT known_through FROM run_params)
UNION SELECT address FROM pending_addresses;

DELETE FROM pending_addresses;
