-- The feedback to the agents paid at each address, per chain (the feedback columns of
-- chain_scores), kept between scoring runs (sql/score/feedback.sql): a run recomputes it only for
-- the addresses of the agents whose feedback or registration changed. It used to be summed again
-- for every address in scope, and an address is in scope whenever a client of one of its agents
-- paid someone: at a million addresses, half of all feedback every run (the agents with the most
-- clients are nearly always in scope). A full run rebuilds it. Empty until the first run after
-- this migration, which is a full run (pipeline/score/run.ts, keptTablesVersion).
CREATE TABLE chain_feedback (
  chain            VARCHAR   NOT NULL,
  address          VARCHAR   NOT NULL,
  feedback_count   INTEGER   NOT NULL,
  client_count     INTEGER   NOT NULL,
  trust_avg        DOUBLE,
  uptime_avg       DOUBLE,
  activity_avg     DOUBLE,
  last_feedback_at TIMESTAMP
);
