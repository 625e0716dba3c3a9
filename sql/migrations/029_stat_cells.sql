-- The counts the run stats are made of (sql/score/stats.sql), kept between scoring runs so an
-- incremental run brings them up to date from the rows it replaced and wrote instead of grouping
-- every serving row again (a million address rows and a million chain rows took 45 ms of a 0.9 s
-- run). A full run rebuilds them. Empty until the first run after this migration, which is a full
-- run (pipeline/score/run.ts, keptTablesVersion).

-- address_scores counted by every attribute a stat splits addresses by (a few hundred cells).
CREATE TABLE address_stat_cells (
  entity_type            VARCHAR,
  score                  INTEGER NOT NULL,
  payer                  BOOLEAN,
  payee                  BOOLEAN,
  verified_activity      BOOLEAN,
  is_known_erc8004_agent BOOLEAN,
  n                      BIGINT  NOT NULL,  -- addresses
  candidate              BIGINT,            -- their candidate payments as payer
  verified               BIGINT             -- and verified ones
);

-- chain_scores rows with candidate payment activity, per chain (the x402 stats' data source).
CREATE TABLE chain_stat_cells (
  chain  VARCHAR NOT NULL,
  active BIGINT  NOT NULL
);
