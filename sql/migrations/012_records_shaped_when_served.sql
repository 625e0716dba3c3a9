-- Records are shaped when served (sql/serve/address_record.sql) from the serving tables instead of
-- being stored as JSON by every run: the JSON of a million addresses was several gigabytes a
-- full run wrote and committed, more than the scoring itself cost (docs/decisions.md).
DROP TABLE reputation_records;

-- What a served record needs that no other serving table holds: the feedback to the agents an
-- address owns or is paid for, on all chains (the record's `reputation` block). One row per
-- address with such feedback, replaced for the addresses in a run's scope.
CREATE TABLE address_feedback (
  run_id           INTEGER   NOT NULL,
  address          VARCHAR   NOT NULL,
  feedback_count   INTEGER   NOT NULL,
  client_count     INTEGER   NOT NULL,
  trust_avg        DOUBLE,
  uptime_avg       DOUBLE,
  activity_avg     DOUBLE,
  last_feedback_at TIMESTAMP
);
