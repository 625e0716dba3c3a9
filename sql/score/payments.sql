-- Brings scored_payments (migration 011) up to date with x402_payments. Only what can have
-- changed since the previous run is replaced (a rebuild empties the table and its aggregates
-- first, sql/score/clear_payments.sql, and has no previous cursors, so the same statements then copy the whole view):
--   rows above the payment floor, chain and imported: the lowest block the previous run had read
--     on the chain's payment sources (token, permit2; -1 on a source it had not seen). Above it a
--     transfer could still have lacked its authorisation or settlement, or been unindexed, and
--     an imported row shadowed by a chain row then may show again: an on-demand run replaces
--     rows above the floor without moving it, and a reorg can take that chain row away (an
--     imported transfer's block is its transaction's, as the chain's row has it);
--   imported rows shadowed by a chain row above the floor (the view prefers the chain's row);
--   imported rows with the key of a row in a newer import, which replaced them (an import
--     replaces rows with the same key whichever import brought them), and the rows of imports
--     newer than the previous run.
-- What was removed and added, net of rows put back unchanged, is what gone_payments() and
-- new_payments() give the aggregates (sql/score/pairs.sql). Reads run_params and previous_cursors.

-- Per chain with a payment source. Ingestion writes a chain's rows and its cursor together; rows
-- written without one (as some tests do) have no floor and count as new on every run (and are
-- put back unchanged) as long as no chain has a floor.
CREATE OR REPLACE TEMP TABLE payment_floor AS
SELECT s.chain, min(coalesce(p.block_number, -1)) AS block_number
  FROM (SELECT DISTINCT chain, source FROM ingest_cursors WHERE source IN ('token', 'permit2')) s
  LEFT JOIN previous_cursors p USING (chain, source)
 GROUP BY s.chain;

-- A constant the optimiser pushes into every table the view reads (zone maps skip older blocks).
SET VARIABLE payments_from = (SELECT coalesce(min(block_number), -1) FROM payment_floor);

-- Whether a row's block is above its chain's floor (`floor`: payment_floor's block, null for a
-- chain it has none for), with the constant beside it for the zone maps.
CREATE OR REPLACE TEMP MACRO above_floor(block, floor) AS block > coalesce(floor, -1) AND block > getvariable('payments_from');

-- Imports newer than the previous run (every import in a rebuild). An on-demand run
-- (`score --address`) records the watermarks of the run before it, so the next run copies the
-- imports it copied again: their rows are replaced, not added twice.
CREATE OR REPLACE TEMP TABLE new_imports AS
SELECT import_id FROM imports WHERE imported_at > (SELECT imports_through FROM run_params)
UNION SELECT DISTINCT import_id FROM imported_transfers WHERE getvariable('rebuild_payments');

CREATE OR REPLACE TEMP TABLE removed_payments AS
SELECT s.* FROM scored_payments s LEFT JOIN payment_floor f ON f.chain = s.chain
 WHERE above_floor(s.block_number, f.block_number)
UNION
SELECT s.* FROM scored_payments s
  SEMI JOIN (SELECT t.chain, t.tx_hash, t.log_index FROM token_transfers t LEFT JOIN payment_floor f ON f.chain = t.chain
              WHERE above_floor(t.block_number, f.block_number)) t
    ON t.chain = s.chain AND t.tx_hash = s.tx_hash AND t.log_index = s.log_index
 WHERE s.origin = 'import'
UNION
SELECT s.* FROM scored_payments s
  SEMI JOIN (SELECT chain, tx_hash, log_index FROM imported_transfers WHERE import_id IN (SELECT import_id FROM new_imports)) i
    ON i.chain = s.chain AND i.tx_hash = s.tx_hash AND i.log_index = s.log_index
 WHERE s.origin = 'import';

DELETE FROM scored_payments s USING removed_payments r
 WHERE s.chain = r.chain AND s.tx_hash = r.tx_hash AND s.log_index = r.log_index AND s.origin = r.origin
   AND s.import_id IS NOT DISTINCT FROM r.import_id;

CREATE OR REPLACE TEMP TABLE added_payments AS
SELECT p.chain, p.tx_hash, p.log_index, p.payer, p.payee, p.value, p.block_time, p.verified, p.origin, p.block_number, p.import_id
  FROM x402_payments p LEFT JOIN payment_floor f ON f.chain = p.chain
 WHERE above_floor(p.block_number, f.block_number)
UNION ALL  -- the rows of newer imports at or below the floor (those above it are in the branch above)
SELECT p.chain, p.tx_hash, p.log_index, p.payer, p.payee, p.value, p.block_time, p.verified, p.origin, p.block_number, p.import_id
  FROM x402_payments p LEFT JOIN payment_floor f ON f.chain = p.chain
 WHERE p.origin = 'import' AND p.import_id IN (SELECT import_id FROM new_imports)
   AND NOT above_floor(p.block_number, f.block_number);

INSERT INTO scored_payments SELECT * FROM added_payments;

-- A row is one transfer (removed_payments is distinct, and the view has one row per key), so an
-- anti join on the key and the whole row gives what EXCEPT ALL would, without its sort (15 ms
-- for 5,000 rows, when the other side is empty). Macros: their few readers each cost less than
-- a temporary table of the rows.
CREATE OR REPLACE TEMP MACRO gone_payments() AS TABLE
  SELECT r.* FROM removed_payments r
    ANTI JOIN added_payments a ON a.chain = r.chain AND a.tx_hash = r.tx_hash AND a.log_index = r.log_index AND a IS NOT DISTINCT FROM r;
CREATE OR REPLACE TEMP MACRO new_payments() AS TABLE
  SELECT a.* FROM added_payments a
    ANTI JOIN removed_payments r ON r.chain = a.chain AND r.tx_hash = a.tx_hash AND r.log_index = a.log_index AND r IS NOT DISTINCT FROM a;

-- Both sides of those: the addresses whose pairs, months and facts this run changes
-- (sql/score/pairs.sql, sql/score/payment_facts.sql).
CREATE OR REPLACE TEMP TABLE paid_addresses AS
SELECT unnest([payer, payee]) AS address FROM gone_payments()
UNION SELECT unnest([payer, payee]) FROM new_payments();
