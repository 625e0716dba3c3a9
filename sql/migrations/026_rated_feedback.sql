-- Every live ERC-8004 feedback entry with its normalised rating, kept between scoring runs
-- (sql/score/feedback.sql): a run rebuilds the entries of the agents whose feedback changed, not
-- every agent's from the raw tables (the revocation, import and block-time joins). A full run
-- rebuilds them all. Empty until the first run after this migration, which is a full run
-- (pipeline/score/run.ts, keptTablesVersion).
CREATE TABLE rated_feedback (
  chain           VARCHAR        NOT NULL,
  agent_id        HUGEINT        NOT NULL USING COMPRESSION uncompressed,
  client_address  VARCHAR        NOT NULL,
  feedback_index  BIGINT         NOT NULL,
  tag1            VARCHAR        NOT NULL,
  value           HUGEINT        NOT NULL USING COMPRESSION uncompressed,
  value_decimals  INTEGER        NOT NULL,
  given_at        TIMESTAMP,                -- the block's time (imported: the file's)
  rating          DECIMAL(18, 6),           -- 0-100, or null for a tag the model does not rate
  tag_group       VARCHAR                   -- trust, uptime, activity (docs/scoring.md, "Feedback")
);
