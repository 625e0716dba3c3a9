-- A run in which no agent changed (every on-demand run, and an incremental run where only
-- payments came in): sql/score/agents.sql and sql/score/feedback.sql would change nothing, and
-- planning their statements cost 30 ms. The later steps get the tables those leave, empty: no
-- address has its feedback summed again, and no entry is read for it.
CREATE OR REPLACE TEMP TABLE feedback_addresses (address VARCHAR);
CREATE OR REPLACE TEMP TABLE run_feedback AS SELECT * FROM rated_feedback LIMIT 0;
