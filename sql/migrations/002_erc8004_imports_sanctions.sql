-- ERC-8004 registry events, registration files and evidence, file imports, the sanctions address
-- list, and per-source block records. Same rules as 001: no keys or unique constraints; raw chain
-- rows are replaced per (chain, source, block range); "latest row wins" tables are append-only.

-- Blocks are recorded per source, so re-ingesting one source's range never touches another's.
ALTER TABLE chain_blocks ADD COLUMN source VARCHAR DEFAULT 'token';

-- Identity Registry: Registered(agentId, agentURI, owner)
CREATE TABLE agent_registrations (
  chain        VARCHAR NOT NULL,
  block_number BIGINT  NOT NULL,
  tx_hash      VARCHAR NOT NULL,
  log_index    INTEGER NOT NULL,
  registry     VARCHAR NOT NULL,    -- identity registry address, lowercased
  agent_id     HUGEINT NOT NULL,
  agent_uri    VARCHAR NOT NULL,
  owner        VARCHAR NOT NULL
);

-- Identity Registry: URIUpdated(agentId, newURI, updatedBy)
CREATE TABLE agent_uri_updates (
  chain        VARCHAR NOT NULL,
  block_number BIGINT  NOT NULL,
  tx_hash      VARCHAR NOT NULL,
  log_index    INTEGER NOT NULL,
  registry     VARCHAR NOT NULL,
  agent_id     HUGEINT NOT NULL,
  new_uri      VARCHAR NOT NULL,
  updated_by   VARCHAR NOT NULL
);

-- Identity Registry: MetadataSet(agentId, indexedMetadataKey, metadataKey, metadataValue).
-- The reserved key `agentWallet` carries the agent's payment wallet (20-byte value).
CREATE TABLE agent_metadata (
  chain          VARCHAR NOT NULL,
  block_number   BIGINT  NOT NULL,
  tx_hash        VARCHAR NOT NULL,
  log_index      INTEGER NOT NULL,
  registry       VARCHAR NOT NULL,
  agent_id       HUGEINT NOT NULL,
  metadata_key   VARCHAR NOT NULL,
  metadata_value VARCHAR NOT NULL   -- 0x-hex bytes as emitted
);

-- Identity Registry: ERC-721 Transfer(from, to, tokenId). Mints come from 0x0; the newest
-- transfer of an agent names its owner.
CREATE TABLE agent_transfers (
  chain        VARCHAR NOT NULL,
  block_number BIGINT  NOT NULL,
  tx_hash      VARCHAR NOT NULL,
  log_index    INTEGER NOT NULL,
  registry     VARCHAR NOT NULL,
  agent_id     HUGEINT NOT NULL,
  from_address VARCHAR NOT NULL,
  to_address   VARCHAR NOT NULL
);

-- Reputation Registry: NewFeedback(agentId, clientAddress, feedbackIndex, value, valueDecimals,
-- indexedTag1, tag1, tag2, endpoint, feedbackURI, feedbackHash)
CREATE TABLE feedback (
  chain          VARCHAR NOT NULL,
  block_number   BIGINT  NOT NULL,
  tx_hash        VARCHAR NOT NULL,
  log_index      INTEGER NOT NULL,
  registry       VARCHAR NOT NULL,  -- reputation registry address
  agent_id       HUGEINT NOT NULL,
  client_address VARCHAR NOT NULL,
  feedback_index BIGINT  NOT NULL,
  value          HUGEINT NOT NULL,  -- signed fixed point: value / 10^value_decimals
  value_decimals INTEGER NOT NULL,
  tag1           VARCHAR NOT NULL,
  tag2           VARCHAR NOT NULL,
  endpoint       VARCHAR NOT NULL,
  feedback_uri   VARCHAR NOT NULL,
  feedback_hash  VARCHAR NOT NULL
);

-- Reputation Registry: FeedbackRevoked(agentId, clientAddress, feedbackIndex)
CREATE TABLE feedback_revocations (
  chain          VARCHAR NOT NULL,
  block_number   BIGINT  NOT NULL,
  tx_hash        VARCHAR NOT NULL,
  log_index      INTEGER NOT NULL,
  registry       VARCHAR NOT NULL,
  agent_id       HUGEINT NOT NULL,
  client_address VARCHAR NOT NULL,
  feedback_index BIGINT  NOT NULL
);

-- Reputation Registry: ResponseAppended(agentId, clientAddress, feedbackIndex, responder,
-- responseURI, responseHash)
CREATE TABLE feedback_responses (
  chain          VARCHAR NOT NULL,
  block_number   BIGINT  NOT NULL,
  tx_hash        VARCHAR NOT NULL,
  log_index      INTEGER NOT NULL,
  registry       VARCHAR NOT NULL,
  agent_id       HUGEINT NOT NULL,
  client_address VARCHAR NOT NULL,
  feedback_index BIGINT  NOT NULL,
  responder      VARCHAR NOT NULL,
  response_uri   VARCHAR NOT NULL,
  response_hash  VARCHAR NOT NULL
);

-- Registration files fetched from agent URIs by the fetch-metadata job. Append-only: the newest
-- row per (chain, registry, agent_id) is current.
CREATE TABLE registration_files (
  chain            VARCHAR   NOT NULL,
  registry         VARCHAR   NOT NULL,
  agent_id         HUGEINT   NOT NULL,
  agent_uri        VARCHAR   NOT NULL,
  fetched_at       TIMESTAMP NOT NULL,
  fetch_status     VARCHAR   NOT NULL, -- ok | http_error | timeout | too_large | invalid_json | unsupported_uri | network_error | redirect_refused | private_address
  metadata_kind    VARCHAR,            -- https | http | ipfs | data | json
  content_sha256   VARCHAR,
  name             VARCHAR,
  description      VARCHAR,
  image            VARCHAR,
  x402_support     BOOLEAN,
  active           BOOLEAN,
  services         JSON,               -- [{name, endpoint, version}] from `services` or `endpoints`
  supported_trust  JSON,               -- from `supportedTrust` or `supportedTrusts`
  metadata_quality VARCHAR   NOT NULL, -- real | placeholder | unknown
  error            VARCHAR
);

-- Evidence about an agent gathered by the fetch-metadata job (never on the request path).
-- Append-only: newest row wins.
CREATE TABLE agent_evidence (
  chain                 VARCHAR   NOT NULL,
  registry              VARCHAR   NOT NULL,
  agent_id              HUGEINT   NOT NULL,
  checked_at            TIMESTAMP NOT NULL,
  has_a2a_agent_card    BOOLEAN   NOT NULL,
  website_url           VARCHAR,
  website_reachable     BOOLEAN,
  website_mentions_mcp  BOOLEAN,
  website_mentions_x402 BOOLEAN,
  github_url            VARCHAR,
  github_stars          INTEGER
);

-- Files imported with `reputation import`, one row per import.
CREATE TABLE imports (
  import_id    VARCHAR   NOT NULL,   -- imp_…
  kind         VARCHAR   NOT NULL,   -- transfers | agents | feedback
  file         VARCHAR   NOT NULL,
  format       VARCHAR   NOT NULL,   -- parquet | csv | jsonl
  rows_read    BIGINT    NOT NULL,
  rows_loaded  BIGINT    NOT NULL,
  rows_skipped BIGINT    NOT NULL,
  imported_at  TIMESTAMP NOT NULL
);

-- Token transfers from files (warehouse exports, Solana SPL transfers). Same meaning as the EVM
-- tables: `authorized` marks an x402 authorisation (EIP-3009 AuthorizationUsed, or an x402 SPL
-- TransferChecked); `tx_sender` is the submitter (EVM sender, Solana fee payer).
CREATE TABLE imported_transfers (
  import_id    VARCHAR   NOT NULL,
  chain        VARCHAR   NOT NULL,   -- base, solana, ...
  block_number BIGINT    NOT NULL,   -- block, or Solana slot
  block_time   TIMESTAMP NOT NULL,
  tx_hash      VARCHAR   NOT NULL,   -- EVM hash lowercased, Solana signature verbatim
  log_index    INTEGER   NOT NULL,   -- log index, or instruction index
  token        VARCHAR   NOT NULL,
  from_address VARCHAR   NOT NULL,
  to_address   VARCHAR   NOT NULL,
  value        HUGEINT   NOT NULL,   -- base units
  tx_sender    VARCHAR   NOT NULL,
  authorized   BOOLEAN   NOT NULL
);

CREATE TABLE imported_agents (
  import_id        VARCHAR NOT NULL,
  chain            VARCHAR NOT NULL,
  registry         VARCHAR NOT NULL,
  agent_id         HUGEINT NOT NULL,
  owner            VARCHAR NOT NULL,
  agent_uri        VARCHAR,
  registered_block BIGINT,
  tx_hash          VARCHAR,
  registration     JSON              -- the registration file, when the export carries it
);

CREATE TABLE imported_feedback (
  import_id      VARCHAR   NOT NULL,
  chain          VARCHAR   NOT NULL,
  registry       VARCHAR   NOT NULL,
  agent_id       HUGEINT   NOT NULL,
  client_address VARCHAR   NOT NULL,
  feedback_index BIGINT    NOT NULL,
  value          HUGEINT   NOT NULL,
  value_decimals INTEGER   NOT NULL,
  tag1           VARCHAR   NOT NULL,
  tag2           VARCHAR   NOT NULL,
  given_at       TIMESTAMP,
  revoked        BOOLEAN   NOT NULL
);

-- OFAC SDN digital-currency addresses, replaced whole by each refresh-sanctions-list run.
CREATE TABLE sanctioned_addresses (
  family      VARCHAR NOT NULL,   -- evm | solana | bitcoin | tron | ... (address form)
  address     VARCHAR NOT NULL,   -- as lookups compare it: EVM, bech32 and CashAddr lowercased, others verbatim (pipeline/sanctions/address-family.ts)
  ofac_label  VARCHAR NOT NULL,   -- currency label of the listing: ETH, XBT, USDT, SOL, ...
  sdn_uid     VARCHAR NOT NULL,   -- SDN entry id (ent_num)
  listed_at   DATE                -- designation date when the source gives one
);

CREATE TABLE sanctions_list_loads (
  loaded_at     TIMESTAMP NOT NULL,
  source        VARCHAR   NOT NULL, -- file path or URL
  source_sha256 VARCHAR   NOT NULL,
  address_count INTEGER   NOT NULL,
  entry_count   INTEGER   NOT NULL
);
