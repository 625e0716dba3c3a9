-- Foundation schema: operational state (accounts, API keys) and raw chain data for the first
-- scoring path.
--
-- No PRIMARY KEY or UNIQUE constraints: DuckDB cannot always replay index updates or upserts from
-- the WAL after kill -9 (duckdb issues 18732, 19712, 22044, 22124), and the single serialised
-- writer already decides uniqueness. Raw chain rows are made idempotent by replacing a block
-- range (DELETE then INSERT in one transaction), not by ON CONFLICT.

CREATE TABLE accounts (
  id          VARCHAR   NOT NULL,   -- acc_…, time-sortable
  name        VARCHAR,
  plan        VARCHAR   NOT NULL,   -- free | starter | growth | scale | pro | enterprise
  status      VARCHAR   NOT NULL,   -- active | cancelled
  created_at  TIMESTAMP NOT NULL
);

CREATE TABLE api_keys (
  id          VARCHAR   NOT NULL,   -- key_…
  account_id  VARCHAR   NOT NULL,
  key_hash    VARCHAR   NOT NULL,   -- hex SHA-256 of the whole key; the key itself is never stored
  key_start   VARCHAR   NOT NULL,   -- first characters, to let a user recognise a key
  created_at  TIMESTAMP NOT NULL,
  revoked_at  TIMESTAMP
);

-- Blocks that carried logs we ingested: timestamps for activity facts, hashes for reorg checks.
CREATE TABLE chain_blocks (
  chain        VARCHAR   NOT NULL,
  block_number BIGINT    NOT NULL,
  block_hash   VARCHAR   NOT NULL,
  block_time   TIMESTAMP NOT NULL
);

-- ERC-20 Transfer logs of the configured token.
CREATE TABLE token_transfers (
  chain        VARCHAR NOT NULL,
  block_number BIGINT  NOT NULL,
  tx_hash      VARCHAR NOT NULL,
  log_index    INTEGER NOT NULL,
  token        VARCHAR NOT NULL,
  from_address VARCHAR NOT NULL,
  to_address   VARCHAR NOT NULL,
  value        HUGEINT NOT NULL     -- base units (USDC: 6 decimals)
);

-- EIP-3009 AuthorizationUsed logs: with a Transfer from the authorizer in the same transaction
-- they make a candidate x402 payment.
CREATE TABLE authorizations_used (
  chain        VARCHAR NOT NULL,
  block_number BIGINT  NOT NULL,
  tx_hash      VARCHAR NOT NULL,
  log_index    INTEGER NOT NULL,
  token        VARCHAR NOT NULL,
  authorizer   VARCHAR NOT NULL,
  nonce        VARCHAR NOT NULL
);

-- Senders of the transactions that carried an authorization: a known facilitator makes the
-- payment verified.
CREATE TABLE transaction_senders (
  chain        VARCHAR NOT NULL,
  block_number BIGINT  NOT NULL,
  tx_hash      VARCHAR NOT NULL,
  from_address VARCHAR NOT NULL
);

-- Append-only cursor log: the newest row per (chain, source) is the cursor. Written in the same
-- transaction as the rows of the range it covers.
CREATE TABLE ingest_cursors (
  chain        VARCHAR   NOT NULL,
  source       VARCHAR   NOT NULL,
  block_number BIGINT    NOT NULL,  -- last block fully ingested
  block_hash   VARCHAR   NOT NULL,
  recorded_at  TIMESTAMP NOT NULL
);

-- Known x402 facilitator signers (pipeline/chain/facilitators.csv), refreshed at start.
CREATE TABLE facilitators (
  network        VARCHAR NOT NULL,
  address        VARCHAR NOT NULL,  -- EVM lowercased, Solana verbatim
  facilitator_id VARCHAR NOT NULL
);

-- One row per scoring run; a run becomes visible when its row and its scores commit together.
CREATE TABLE scoring_runs (
  run_id        INTEGER   NOT NULL,
  model_version VARCHAR   NOT NULL,
  scored_at     TIMESTAMP NOT NULL,
  address_count INTEGER   NOT NULL
);

CREATE TABLE address_scores (
  run_id                      INTEGER   NOT NULL,
  chain                       VARCHAR   NOT NULL,
  address                     VARCHAR   NOT NULL,
  score                       INTEGER   NOT NULL,
  grade                       VARCHAR   NOT NULL,
  confidence                  DOUBLE    NOT NULL,
  entity_type                 VARCHAR   NOT NULL,
  candidate_as_payer          INTEGER   NOT NULL,
  candidate_as_payee          INTEGER   NOT NULL,
  verified_as_payer           INTEGER   NOT NULL,
  verified_as_payee           INTEGER   NOT NULL,
  counterparties_count        INTEGER   NOT NULL,
  active_days                 INTEGER   NOT NULL,
  active_months               INTEGER   NOT NULL,
  volume_usdc                 DOUBLE    NOT NULL,
  first_candidate_tx_at       TIMESTAMP,
  last_candidate_tx_at        TIMESTAMP,
  first_verified_tx_at        TIMESTAMP,
  last_verified_tx_at         TIMESTAMP
);
