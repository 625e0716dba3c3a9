-- Brings scored_payments (migration 011) up to date with x402_payments. Only what can have
-- changed since the previous run is replaced (a rebuild deletes every row first and has no
-- previous cursors, so the same statements then copy the whole view):
--   chain rows above the payment floor: the lowest block the previous run had read on the
--     chain's payment sources (token, permit2; -1 on a source it had not seen). Above it a
--     transfer could still have lacked its authorisation or settlement, or been unindexed;
--   imported rows shadowed by a chain row above the floor (the view prefers the chain's row);
--   the rows of imports newer than the previous run.
-- Reads run_params and previous_cursors (sql/score/run.ts).
DELETE FROM scored_payments WHERE (SELECT rebuild_payments FROM run_params);

CREATE OR REPLACE TEMP TABLE payment_floor AS
WITH chains AS (SELECT DISTINCT chain FROM token_transfers UNION SELECT chain FROM ingest_cursors),
sources AS (SELECT DISTINCT chain, source FROM ingest_cursors WHERE source IN ('token', 'permit2'))
SELECT c.chain, coalesce(min(coalesce(p.block_number, -1)), -1) AS block_number
  FROM chains c
  LEFT JOIN sources s USING (chain)
  LEFT JOIN previous_cursors p ON p.chain = s.chain AND p.source = s.source
 GROUP BY c.chain;

-- A constant the optimiser pushes into every table the view reads (zone maps skip older blocks).
SET VARIABLE payments_from = (SELECT coalesce(min(block_number), -1) FROM payment_floor);

DELETE FROM scored_payments s USING payment_floor f
 WHERE s.origin = 'chain' AND s.chain = f.chain AND s.block_number > f.block_number;

DELETE FROM scored_payments s USING token_transfers t, payment_floor f
 WHERE s.origin = 'import' AND t.chain = s.chain AND t.tx_hash = s.tx_hash AND t.log_index = s.log_index
   AND f.chain = t.chain AND t.block_number > f.block_number AND t.block_number > getvariable('payments_from');

INSERT INTO scored_payments
SELECT p.chain, p.tx_hash, p.log_index, p.payer, p.payee, p.value, p.block_time, p.verified, p.origin, p.block_number, p.import_id
  FROM x402_payments p JOIN payment_floor f ON f.chain = p.chain AND p.block_number > f.block_number
 WHERE p.origin = 'chain' AND p.block_number > getvariable('payments_from');

-- Deleted first: an on-demand run (`score --address`) records the watermarks of the run before it,
-- so the next run copies the imports it copied again.
CREATE OR REPLACE TEMP TABLE new_imports AS
SELECT import_id FROM imports WHERE imported_at > (SELECT imports_through FROM run_params);

DELETE FROM scored_payments WHERE origin = 'import' AND ((SELECT rebuild_payments FROM run_params) OR import_id IN (SELECT import_id FROM new_imports));

INSERT INTO scored_payments
SELECT chain, tx_hash, log_index, payer, payee, value, block_time, verified, origin, block_number, import_id
  FROM x402_payments
 WHERE origin = 'import' AND ((SELECT rebuild_payments FROM run_params) OR import_id IN (SELECT import_id FROM new_imports));
