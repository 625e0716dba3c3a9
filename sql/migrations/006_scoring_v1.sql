-- Scoring model v1 (docs/scoring.md): the serving tables a run materialises, the record of each
-- run's inputs (what an incremental run compares against), per-run stats, and minimal entries for
-- addresses that were asked about before they were indexed.
--
-- Serving tables hold the current state: one row per key. A run deletes the rows it recomputes
-- and inserts their new values in the same transaction as its scoring_runs row, so a reader sees
-- the state before the run or after it, never a mix. `run_id` on a row names the run that last
-- recomputed it; an address whose inputs did not change keeps its row from an earlier run.

DROP TABLE address_scores;

ALTER TABLE scoring_runs ADD COLUMN kind VARCHAR DEFAULT 'full';      -- full | incremental | addresses
ALTER TABLE scoring_runs ADD COLUMN rescored_count INTEGER DEFAULT 0;  -- addresses recomputed by this run
ALTER TABLE scoring_runs ADD COLUMN inputs JSON;                       -- watermarks of the inputs it read

-- Per (chain, address): activity, identity, evidence and feedback facts, the five dimensions, the
-- score and the classification.
CREATE TABLE chain_scores (
  run_id                        INTEGER   NOT NULL,
  chain                         VARCHAR   NOT NULL,
  address                       VARCHAR   NOT NULL,
  score                         INTEGER   NOT NULL,  -- 0-100
  grade                         VARCHAR   NOT NULL,  -- A-F
  confidence                    DOUBLE    NOT NULL,  -- 0-1
  identity                      DOUBLE    NOT NULL,  -- the five dimensions, 0-100
  activity                      DOUBLE    NOT NULL,
  capability                    DOUBLE    NOT NULL,
  reach                         DOUBLE    NOT NULL,
  trust                         DOUBLE    NOT NULL,
  entity_type                   VARCHAR   NOT NULL,  -- agent | service | hybrid | wallet | unknown
  entity_confidence             DOUBLE    NOT NULL,
  is_known                      BOOLEAN   NOT NULL,
  is_known_erc8004_agent        BOOLEAN   NOT NULL,
  reasons                       VARCHAR[] NOT NULL,
  agent_count                   INTEGER   NOT NULL,  -- registered agents paid at this address (agentWallet) on this chain
  candidate_as_payer            INTEGER   NOT NULL,
  candidate_as_payee            INTEGER   NOT NULL,
  verified_as_payer             INTEGER   NOT NULL,
  verified_as_payee             INTEGER   NOT NULL,
  counterparties_count          INTEGER   NOT NULL,
  verified_counterparties_count INTEGER   NOT NULL,
  active_days                   INTEGER   NOT NULL,
  active_months                 INTEGER   NOT NULL,
  volume_usdc                   DOUBLE    NOT NULL,
  verified_volume_usdc          DOUBLE    NOT NULL,
  first_candidate_tx_at         TIMESTAMP,
  last_candidate_tx_at          TIMESTAMP,
  first_verified_tx_at          TIMESTAMP,
  last_verified_tx_at           TIMESTAMP,
  ens_name                      VARCHAR,
  website_url                   VARCHAR,
  github_url                    VARCHAR,
  metadata_kind                 VARCHAR,
  metadata_quality              VARCHAR,             -- real | placeholder | unknown; null when no agent
  has_a2a_agent_card            BOOLEAN,
  website_reachable             BOOLEAN,
  website_mentions_mcp          BOOLEAN,
  website_mentions_x402         BOOLEAN,
  github_stars                  INTEGER,
  feedback_count                INTEGER   NOT NULL,  -- live (not revoked) feedback to the agents paid here
  client_count                  INTEGER   NOT NULL,
  trust_avg                     DOUBLE,              -- plain averages by tag group, 0-100
  uptime_avg                    DOUBLE,
  activity_avg                  DOUBLE,
  last_feedback_at              TIMESTAMP,
  feedback_weight               DOUBLE    NOT NULL   -- sum of the client weights the trust dimension used
);

-- Per registered agent: who owns it, where it is paid, its registration file, its score.
CREATE TABLE agent_scores (
  run_id                 INTEGER   NOT NULL,
  chain                  VARCHAR   NOT NULL,
  registry               VARCHAR   NOT NULL,
  agent_id               HUGEINT   NOT NULL,
  owner                  VARCHAR   NOT NULL,
  agent_wallet           VARCHAR,              -- agentWallet metadata; null when never set
  name                   VARCHAR,
  description            VARCHAR,
  agent_uri              VARCHAR,
  metadata_quality       VARCHAR   NOT NULL,   -- real | placeholder | unknown
  has_endpoint           BOOLEAN   NOT NULL,
  github_url             VARCHAR,
  registered_at          TIMESTAMP,
  agents_sharing_owner   INTEGER   NOT NULL,
  score                  INTEGER   NOT NULL,
  grade                  VARCHAR   NOT NULL,
  confidence             DOUBLE    NOT NULL,
  identity               DOUBLE    NOT NULL,
  activity               DOUBLE    NOT NULL,
  capability             DOUBLE    NOT NULL,
  reach                  DOUBLE    NOT NULL,
  trust                  DOUBLE    NOT NULL,
  entity_type            VARCHAR   NOT NULL,
  feedback_count         INTEGER   NOT NULL,
  client_count           INTEGER   NOT NULL,
  feedback_weight        DOUBLE    NOT NULL,
  weighted_feedback_avg  DOUBLE              -- 0-100, what the trust dimension shrinks toward the prior
);

-- Per (agent, client): how much the client's feedback counts (docs/scoring.md, "Feedback weight").
CREATE TABLE feedback_weights (
  run_id          INTEGER NOT NULL,
  chain           VARCHAR NOT NULL,
  registry        VARCHAR NOT NULL,
  agent_id        HUGEINT NOT NULL,
  client_address  VARCHAR NOT NULL,
  feedback_count  INTEGER NOT NULL,   -- live feedback entries of this client for this agent
  value_avg       DOUBLE  NOT NULL,   -- their mean, normalised to 0-100
  weight          DOUBLE  NOT NULL,   -- 0-1; one client never counts more than 1
  weight_reason   VARCHAR NOT NULL    -- paid_verified | paid_candidate | active_elsewhere | no_payment_history | self_feedback
);

-- Per address: the top-level score (operator score when it owns agents, else the best chain).
CREATE TABLE address_scores (
  run_id          INTEGER   NOT NULL,
  address         VARCHAR   NOT NULL,
  score           INTEGER   NOT NULL,
  grade           VARCHAR   NOT NULL,
  chains          VARCHAR[] NOT NULL,   -- chains with a chain_scores row, best first
  operator_score  INTEGER,              -- null unless the address owns registered agents
  operator_grade  VARCHAR,
  agent_count     INTEGER   NOT NULL,   -- agents owned, all chains
  chains_active   VARCHAR[] NOT NULL    -- chains its agents are registered on
);

-- The records the API serves, precomputed per address: spec 2.7 free and paid shapes and the
-- facts of the 2.8 view. Times that depend on the newest run (scored_at, status) are filled in
-- when served.
CREATE TABLE reputation_records (
  run_id       INTEGER NOT NULL,
  address      VARCHAR NOT NULL,
  record_free  JSON    NOT NULL,
  record_paid  JSON    NOT NULL,
  view_facts   JSON    NOT NULL
);

-- Stats per run: `v2` for GET /v1/stats, `x402` and `erc8004` for the legacy endpoints.
CREATE TABLE run_stats (
  run_id  INTEGER NOT NULL,
  name    VARCHAR NOT NULL,
  body    JSON    NOT NULL
);

-- Addresses asked about before they were indexed (assess of an unknown address, `score
-- --address`): each gets a record on the next run that scores it.
CREATE TABLE known_addresses (
  address      VARCHAR   NOT NULL,   -- EVM lowercased, Solana verbatim
  family       VARCHAR   NOT NULL,   -- evm | solana
  source       VARCHAR   NOT NULL,   -- assess | cli
  first_seen_at TIMESTAMP NOT NULL
);
