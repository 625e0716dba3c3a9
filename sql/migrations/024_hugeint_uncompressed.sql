-- 128-bit integers stored uncompressed. DuckDB bit-packs a HUGEINT column by default, and reading
-- it back is slow: at the bench size, scanning the 194,000 feedback rows' agent_id took 49 ms
-- bit-packed and 1.8 ms uncompressed (a BIGINT column: 1.1 ms), and every run reads agent ids and
-- amounts many times over (feedback, weights, agents; the pairs' volumes). The space this costs is
-- small at these sizes (16 bytes a value). The two 10M-row tables (token_transfers and
-- scored_payments) keep the default: runs read only their newest blocks.
-- DuckDB cannot change a column's compression in place, so each table is copied into one created
-- with it, in its column order, and takes the old one's name (agent_scores' indexes of migration
-- 014 with it). New rows keep the setting.

CREATE TABLE payment_pairs_rewritten (
  "chain" VARCHAR NOT NULL,
  payer VARCHAR NOT NULL,
  payee VARCHAR NOT NULL,
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

CREATE INDEX agent_scores_owner ON agent_scores (owner);
CREATE INDEX agent_scores_agent_wallet ON agent_scores (agent_wallet);
