-- x402_payments, same rows as in 009, with two more columns at the end: block_number (an imported
-- payment's block or slot as imported) and import_id (NULL on chain rows), which a scoring run
-- uses to keep scored_payments up to date. Every join to the transfer also matches its
-- block_number (a log, its transaction's sender and its AuthorizationUsed share the block), so a
-- filter on block_number reaches each table through the join instead of only the transfers.
CREATE OR REPLACE VIEW x402_payments AS
WITH authorised AS (
  SELECT t.chain, t.tx_hash, t.log_index, t.token, t.from_address, t.to_address, t.value, t.block_number
    FROM token_transfers t
    SEMI JOIN authorizations_used a
      ON a.chain = t.chain AND a.tx_hash = t.tx_hash AND a.token = t.token
     AND a.authorizer = t.from_address AND a.log_index = t.log_index - 1 AND a.block_number = t.block_number
),
through_permit2 AS (
  SELECT t.chain, t.tx_hash, t.log_index, t.token, t.from_address, t.to_address, t.value, t.block_number
    FROM token_transfers t
    SEMI JOIN permit2_settlements p ON p.chain = t.chain AND p.block_number = t.block_number AND p.tx_hash = t.tx_hash
    ANTI JOIN authorizations_used a
      ON a.chain = t.chain AND a.tx_hash = t.tx_hash AND a.token = t.token
     AND a.authorizer = t.from_address AND a.log_index = t.log_index - 1 AND a.block_number = t.block_number
)
SELECT t.chain, t.tx_hash, t.log_index, t.token, t.from_address AS payer, t.to_address AS payee, t.value,
       b.block_time,
       s.from_address AS submitter,
       s.from_address IN (SELECT address FROM facilitators) AS verified,
       'chain' AS origin, t.block_number, NULL::VARCHAR AS import_id
  FROM authorised t
  JOIN chain_blocks b ON b.chain = t.chain AND b.source = 'token' AND b.block_number = t.block_number
  LEFT JOIN transaction_senders s ON s.chain = t.chain AND s.block_number = t.block_number AND s.tx_hash = t.tx_hash AND s.source = 'token'
UNION ALL
SELECT t.chain, t.tx_hash, t.log_index, t.token, t.from_address, t.to_address, t.value,
       b.block_time,
       s.from_address,
       s.from_address IN (SELECT address FROM facilitators),
       'chain', t.block_number, NULL
  FROM through_permit2 t
  JOIN chain_blocks b ON b.chain = t.chain AND b.source = 'token' AND b.block_number = t.block_number
  LEFT JOIN transaction_senders s ON s.chain = t.chain AND s.block_number = t.block_number AND s.tx_hash = t.tx_hash AND s.source = 'permit2'
UNION ALL
SELECT i.chain, i.tx_hash, i.log_index, i.token, i.from_address, i.to_address, i.value,
       i.block_time,
       i.tx_sender,
       i.tx_sender IN (SELECT address FROM facilitators),
       'import', i.block_number, i.import_id
  FROM imported_transfers i
  ANTI JOIN token_transfers t ON t.chain = i.chain AND t.tx_hash = i.tx_hash AND t.log_index = i.log_index
 WHERE i.authorized;

-- The x402 payments as the newest scoring run saw them: x402_payments materialised, kept up to
-- date by each run from what changed since the one before (sql/score/payments.sql), and rebuilt
-- in full only when that cannot be trusted (no earlier run, a new facilitator list, a reorg below
-- what the last run read). Scoring reads this table, not the view: the view joins every transfer
-- to its authorisation, sender and block, which costs several times more than the scoring itself.
-- No keys or indexes: DuckDB cannot always replay a WAL holding index updates (see DESIGN.md).
CREATE TABLE scored_payments (
  chain        VARCHAR   NOT NULL,
  tx_hash      VARCHAR   NOT NULL,
  log_index    INTEGER   NOT NULL,
  payer        VARCHAR   NOT NULL,
  payee        VARCHAR   NOT NULL,
  value        HUGEINT   NOT NULL,
  block_time   TIMESTAMP NOT NULL,
  verified     BOOLEAN,             -- NULL: the transaction's sender is not indexed
  origin       VARCHAR   NOT NULL,  -- chain | import
  block_number BIGINT    NOT NULL,
  import_id    VARCHAR
);
