-- Columns that every scoring run scans, stored uncompressed (docs/decisions.md, "Columns runs
-- scan are stored uncompressed"). DuckDB picks the compression that saves the most space, and
-- decoding some of it costs more than the runs can spare:
--   128-bit integers (agent ids and amounts, uint256 on chain) are bit-packed: scanning the agent
--     ids of 194,000 feedback rows took 49 ms, 1.8 ms uncompressed (a BIGINT column: 1.1 ms);
--   addresses (random hex) get FSST: joining a million of them with 10,000 others took 26-33 ms,
--     13 ms uncompressed.
-- Runs read agent ids many times over (feedback, weights, agents, scope) and the address keys of
-- the pairs, months, facts and serving rows in every step. The space this costs is 16 bytes per
-- integer and about twice the FSST size per address. token_transfers and scored_payments (the
-- 10M-row tables) keep the default: runs read only their newest blocks.
-- DuckDB cannot change a column's compression in place, so each table is copied into one created
-- with it, in its column order, and takes the old one's name (agent_scores' indexes of migration
-- 014 with it). New rows keep the setting.

CREATE TABLE payment_pairs_rewritten (
  "chain" VARCHAR NOT NULL,
  payer VARCHAR NOT NULL USING COMPRESSION uncompressed,
  payee VARCHAR NOT NULL USING COMPRESSION uncompressed,
  payments BIGINT NOT NULL,
  verified_payments BIGINT NOT NULL,
  volume HUGEINT NOT NULL USING COMPRESSION uncompressed,
  verified_volume HUGEINT USING COMPRESSION uncompressed,
  first_at TIMESTAMP NOT NULL,
  last_at TIMESTAMP NOT NULL,
  first_verified_at TIMESTAMP,
  last_verified_at TIMESTAMP
);
INSERT INTO payment_pairs_rewritten SELECT * FROM payment_pairs;
DROP TABLE payment_pairs;
ALTER TABLE payment_pairs_rewritten RENAME TO payment_pairs;

CREATE TABLE feedback_rewritten (
  "chain" VARCHAR NOT NULL,
  block_number BIGINT NOT NULL,
  tx_hash VARCHAR NOT NULL,
  log_index INTEGER NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  client_address VARCHAR NOT NULL,
  feedback_index BIGINT NOT NULL,
  "value" HUGEINT NOT NULL USING COMPRESSION uncompressed,
  value_decimals INTEGER NOT NULL,
  tag1 VARCHAR NOT NULL,
  tag2 VARCHAR NOT NULL,
  endpoint VARCHAR NOT NULL,
  feedback_uri VARCHAR NOT NULL,
  feedback_hash VARCHAR NOT NULL
);
INSERT INTO feedback_rewritten SELECT * FROM feedback;
DROP TABLE feedback;
ALTER TABLE feedback_rewritten RENAME TO feedback;

CREATE TABLE feedback_weights_rewritten (
  run_id INTEGER NOT NULL,
  "chain" VARCHAR NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  client_address VARCHAR NOT NULL,
  feedback_count INTEGER NOT NULL,
  value_avg DOUBLE NOT NULL,
  weight DOUBLE NOT NULL,
  weight_reason VARCHAR NOT NULL
);
INSERT INTO feedback_weights_rewritten SELECT * FROM feedback_weights;
DROP TABLE feedback_weights;
ALTER TABLE feedback_weights_rewritten RENAME TO feedback_weights;

CREATE TABLE feedback_revocations_rewritten (
  "chain" VARCHAR NOT NULL,
  block_number BIGINT NOT NULL,
  tx_hash VARCHAR NOT NULL,
  log_index INTEGER NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  client_address VARCHAR NOT NULL,
  feedback_index BIGINT NOT NULL
);
INSERT INTO feedback_revocations_rewritten SELECT * FROM feedback_revocations;
DROP TABLE feedback_revocations;
ALTER TABLE feedback_revocations_rewritten RENAME TO feedback_revocations;

CREATE TABLE feedback_responses_rewritten (
  "chain" VARCHAR NOT NULL,
  block_number BIGINT NOT NULL,
  tx_hash VARCHAR NOT NULL,
  log_index INTEGER NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  client_address VARCHAR NOT NULL,
  feedback_index BIGINT NOT NULL,
  responder VARCHAR NOT NULL,
  response_uri VARCHAR NOT NULL,
  response_hash VARCHAR NOT NULL
);
INSERT INTO feedback_responses_rewritten SELECT * FROM feedback_responses;
DROP TABLE feedback_responses;
ALTER TABLE feedback_responses_rewritten RENAME TO feedback_responses;

CREATE TABLE imported_feedback_rewritten (
  import_id VARCHAR NOT NULL,
  "chain" VARCHAR NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  client_address VARCHAR NOT NULL,
  feedback_index BIGINT NOT NULL,
  "value" HUGEINT NOT NULL USING COMPRESSION uncompressed,
  value_decimals INTEGER NOT NULL,
  tag1 VARCHAR NOT NULL,
  tag2 VARCHAR NOT NULL,
  given_at TIMESTAMP,
  revoked BOOLEAN NOT NULL
);
INSERT INTO imported_feedback_rewritten SELECT * FROM imported_feedback;
DROP TABLE imported_feedback;
ALTER TABLE imported_feedback_rewritten RENAME TO imported_feedback;

CREATE TABLE agent_registrations_rewritten (
  "chain" VARCHAR NOT NULL,
  block_number BIGINT NOT NULL,
  tx_hash VARCHAR NOT NULL,
  log_index INTEGER NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  agent_uri VARCHAR NOT NULL,
  "owner" VARCHAR NOT NULL
);
INSERT INTO agent_registrations_rewritten SELECT * FROM agent_registrations;
DROP TABLE agent_registrations;
ALTER TABLE agent_registrations_rewritten RENAME TO agent_registrations;

CREATE TABLE agent_transfers_rewritten (
  "chain" VARCHAR NOT NULL,
  block_number BIGINT NOT NULL,
  tx_hash VARCHAR NOT NULL,
  log_index INTEGER NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  from_address VARCHAR NOT NULL,
  to_address VARCHAR NOT NULL
);
INSERT INTO agent_transfers_rewritten SELECT * FROM agent_transfers;
DROP TABLE agent_transfers;
ALTER TABLE agent_transfers_rewritten RENAME TO agent_transfers;

CREATE TABLE agent_metadata_rewritten (
  "chain" VARCHAR NOT NULL,
  block_number BIGINT NOT NULL,
  tx_hash VARCHAR NOT NULL,
  log_index INTEGER NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  metadata_key VARCHAR NOT NULL,
  metadata_value VARCHAR NOT NULL
);
INSERT INTO agent_metadata_rewritten SELECT * FROM agent_metadata;
DROP TABLE agent_metadata;
ALTER TABLE agent_metadata_rewritten RENAME TO agent_metadata;

CREATE TABLE agent_uri_updates_rewritten (
  "chain" VARCHAR NOT NULL,
  block_number BIGINT NOT NULL,
  tx_hash VARCHAR NOT NULL,
  log_index INTEGER NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  new_uri VARCHAR NOT NULL,
  updated_by VARCHAR NOT NULL
);
INSERT INTO agent_uri_updates_rewritten SELECT * FROM agent_uri_updates;
DROP TABLE agent_uri_updates;
ALTER TABLE agent_uri_updates_rewritten RENAME TO agent_uri_updates;

CREATE TABLE imported_agents_rewritten (
  import_id VARCHAR NOT NULL,
  "chain" VARCHAR NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  "owner" VARCHAR NOT NULL,
  agent_uri VARCHAR,
  registered_block BIGINT,
  tx_hash VARCHAR,
  registration JSON
);
INSERT INTO imported_agents_rewritten SELECT * FROM imported_agents;
DROP TABLE imported_agents;
ALTER TABLE imported_agents_rewritten RENAME TO imported_agents;

CREATE TABLE registration_files_rewritten (
  "chain" VARCHAR NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  agent_uri VARCHAR NOT NULL,
  fetched_at TIMESTAMP NOT NULL,
  fetch_status VARCHAR NOT NULL,
  metadata_kind VARCHAR,
  content_sha256 VARCHAR,
  "name" VARCHAR,
  description VARCHAR,
  image VARCHAR,
  x402_support BOOLEAN,
  active BOOLEAN,
  services JSON,
  supported_trust JSON,
  metadata_quality VARCHAR NOT NULL,
  "error" VARCHAR
);
INSERT INTO registration_files_rewritten SELECT * FROM registration_files;
DROP TABLE registration_files;
ALTER TABLE registration_files_rewritten RENAME TO registration_files;

CREATE TABLE agent_evidence_rewritten (
  "chain" VARCHAR NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  checked_at TIMESTAMP NOT NULL,
  has_a2a_agent_card BOOLEAN NOT NULL,
  website_url VARCHAR,
  website_reachable BOOLEAN,
  website_mentions_mcp BOOLEAN,
  website_mentions_x402 BOOLEAN,
  github_url VARCHAR,
  github_stars INTEGER
);
INSERT INTO agent_evidence_rewritten SELECT * FROM agent_evidence;
DROP TABLE agent_evidence;
ALTER TABLE agent_evidence_rewritten RENAME TO agent_evidence;

CREATE TABLE agent_scores_rewritten (
  run_id INTEGER NOT NULL,
  "chain" VARCHAR NOT NULL,
  registry VARCHAR NOT NULL,
  agent_id HUGEINT NOT NULL USING COMPRESSION uncompressed,
  "owner" VARCHAR NOT NULL,
  agent_wallet VARCHAR,
  "name" VARCHAR,
  description VARCHAR,
  agent_uri VARCHAR,
  metadata_quality VARCHAR NOT NULL,
  has_endpoint BOOLEAN NOT NULL,
  github_url VARCHAR,
  registered_at TIMESTAMP,
  agents_sharing_owner INTEGER NOT NULL,
  score INTEGER NOT NULL,
  grade VARCHAR NOT NULL,
  confidence DOUBLE NOT NULL,
  "identity" DOUBLE NOT NULL,
  activity DOUBLE NOT NULL,
  capability DOUBLE NOT NULL,
  reach DOUBLE NOT NULL,
  trust DOUBLE NOT NULL,
  entity_type VARCHAR NOT NULL,
  feedback_count INTEGER NOT NULL,
  client_count INTEGER NOT NULL,
  feedback_weight DOUBLE NOT NULL,
  weighted_feedback_avg DOUBLE,
  has_candidate_payment_activity BOOLEAN,
  has_verified_payment_activity BOOLEAN
);
INSERT INTO agent_scores_rewritten SELECT * FROM agent_scores;
DROP TABLE agent_scores;
ALTER TABLE agent_scores_rewritten RENAME TO agent_scores;

CREATE TABLE payment_months_rewritten (
  "chain" VARCHAR NOT NULL,
  address VARCHAR NOT NULL USING COMPRESSION uncompressed,
  "month" DATE NOT NULL,
  "days" INTEGER NOT NULL
);
INSERT INTO payment_months_rewritten SELECT * FROM payment_months;
DROP TABLE payment_months;
ALTER TABLE payment_months_rewritten RENAME TO payment_months;

CREATE TABLE payment_facts_rewritten (
  "chain" VARCHAR NOT NULL,
  address VARCHAR NOT NULL USING COMPRESSION uncompressed,
  candidate_as_payer INTEGER NOT NULL,
  candidate_as_payee INTEGER NOT NULL,
  verified_as_payer INTEGER NOT NULL,
  verified_as_payee INTEGER NOT NULL,
  counterparties_count INTEGER NOT NULL,
  verified_counterparties_count INTEGER NOT NULL,
  active_days INTEGER NOT NULL,
  active_months INTEGER NOT NULL,
  volume_usdc DOUBLE NOT NULL,
  verified_volume_usdc DOUBLE NOT NULL,
  first_candidate_tx_at TIMESTAMP,
  last_candidate_tx_at TIMESTAMP,
  first_verified_tx_at TIMESTAMP,
  last_verified_tx_at TIMESTAMP
);
INSERT INTO payment_facts_rewritten SELECT * FROM payment_facts;
DROP TABLE payment_facts;
ALTER TABLE payment_facts_rewritten RENAME TO payment_facts;

CREATE TABLE chain_scores_rewritten (
  run_id INTEGER NOT NULL,
  "chain" VARCHAR NOT NULL,
  address VARCHAR NOT NULL USING COMPRESSION uncompressed,
  score INTEGER NOT NULL,
  grade VARCHAR NOT NULL,
  confidence DOUBLE NOT NULL,
  "identity" DOUBLE NOT NULL,
  activity DOUBLE NOT NULL,
  capability DOUBLE NOT NULL,
  reach DOUBLE NOT NULL,
  trust DOUBLE NOT NULL,
  entity_type VARCHAR NOT NULL,
  entity_confidence DOUBLE NOT NULL,
  is_known BOOLEAN NOT NULL,
  is_known_erc8004_agent BOOLEAN NOT NULL,
  reasons VARCHAR[] NOT NULL,
  agent_count INTEGER NOT NULL,
  candidate_as_payer INTEGER NOT NULL,
  candidate_as_payee INTEGER NOT NULL,
  verified_as_payer INTEGER NOT NULL,
  verified_as_payee INTEGER NOT NULL,
  counterparties_count INTEGER NOT NULL,
  verified_counterparties_count INTEGER NOT NULL,
  active_days INTEGER NOT NULL,
  active_months INTEGER NOT NULL,
  volume_usdc DOUBLE NOT NULL,
  verified_volume_usdc DOUBLE NOT NULL,
  first_candidate_tx_at TIMESTAMP,
  last_candidate_tx_at TIMESTAMP,
  first_verified_tx_at TIMESTAMP,
  last_verified_tx_at TIMESTAMP,
  ens_name VARCHAR,
  website_url VARCHAR,
  github_url VARCHAR,
  metadata_kind VARCHAR,
  metadata_quality VARCHAR,
  has_a2a_agent_card BOOLEAN,
  website_reachable BOOLEAN,
  website_mentions_mcp BOOLEAN,
  website_mentions_x402 BOOLEAN,
  github_stars INTEGER,
  feedback_count INTEGER NOT NULL,
  client_count INTEGER NOT NULL,
  trust_avg DOUBLE,
  uptime_avg DOUBLE,
  activity_avg DOUBLE,
  last_feedback_at TIMESTAMP,
  feedback_weight DOUBLE NOT NULL
);
INSERT INTO chain_scores_rewritten SELECT * FROM chain_scores;
DROP TABLE chain_scores;
ALTER TABLE chain_scores_rewritten RENAME TO chain_scores;

CREATE TABLE address_scores_rewritten (
  run_id INTEGER NOT NULL,
  address VARCHAR NOT NULL USING COMPRESSION uncompressed,
  score INTEGER NOT NULL,
  grade VARCHAR NOT NULL,
  chains VARCHAR[] NOT NULL,
  operator_score INTEGER,
  operator_grade VARCHAR,
  agent_count INTEGER NOT NULL,
  chains_active VARCHAR[] NOT NULL,
  entity_type VARCHAR,
  candidate_as_payer INTEGER,
  candidate_as_payee INTEGER,
  verified_as_payer INTEGER,
  verified_as_payee INTEGER,
  is_known_erc8004_agent BOOLEAN,
  volume_usdc DOUBLE,
  counterparties_count INTEGER,
  active_months INTEGER,
  first_candidate_tx_at TIMESTAMP,
  last_candidate_tx_at TIMESTAMP
);
INSERT INTO address_scores_rewritten SELECT * FROM address_scores;
DROP TABLE address_scores;
ALTER TABLE address_scores_rewritten RENAME TO address_scores;

CREATE INDEX agent_scores_owner ON agent_scores (owner);
CREATE INDEX agent_scores_agent_wallet ON agent_scores (agent_wallet);
