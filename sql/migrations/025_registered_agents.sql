-- Every registered agent as it stands now, kept between scoring runs (sql/score/agents.sql): a
-- run rebuilds the rows of the agents whose inputs changed, not every agent from every identity
-- table (0.15 s at 20,000 agents, most of it sorting each table's rows per agent). A full run
-- rebuilds them all. Empty until the first run after this migration, which is a full run
-- (pipeline/score/run.ts, keptTablesVersion).
CREATE TABLE registered_agents (
  chain                  VARCHAR   NOT NULL,
  registry               VARCHAR   NOT NULL,
  agent_id               HUGEINT   NOT NULL USING COMPRESSION uncompressed,
  owner                  VARCHAR   NOT NULL,  -- the newest ERC-721 transfer's receiver, else the registrant
  agent_wallet           VARCHAR,             -- agentWallet metadata set after the newest transfer
  pay_to                 VARCHAR   NOT NULL,  -- agent_wallet, else owner: where the agent is paid
  agent_uri              VARCHAR   NOT NULL,
  name                   VARCHAR,             -- from the newest registration file
  description            VARCHAR,
  metadata_kind          VARCHAR,
  metadata_quality       VARCHAR   NOT NULL,
  x402_support           BOOLEAN,
  active                 BOOLEAN,
  service_count          BIGINT    NOT NULL,
  ens_name               VARCHAR,
  website_url            VARCHAR,             -- from the newest evidence, else the file's web service
  github_url             VARCHAR,
  github_stars           INTEGER,
  has_a2a_agent_card     BOOLEAN,
  website_reachable      BOOLEAN,
  website_mentions_mcp   BOOLEAN,
  website_mentions_x402  BOOLEAN,
  registered_at          TIMESTAMP            -- the registration block's time
);
