-- Job schedules and job runs. The owner keeps them, whichever runner executes the jobs (in-process
-- timers, or BullMQ when REDIS_URL is set: the owner mirrors schedules into BullMQ job schedulers,
-- so a Redis that lost its data gets them back).

-- Append-only: the newest row per schedule_id is current; `every_seconds` NULL means removed.
CREATE TABLE job_schedules (
  schedule_id   VARCHAR   NOT NULL,   -- e.g. ingest-base, score, refresh-sanctions-list
  job_name      VARCHAR   NOT NULL,
  job_data      JSON      NOT NULL,
  every_seconds INTEGER,
  updated_at    TIMESTAMP NOT NULL
);

-- Append-only state log per run: the newest row per run_id is its state.
CREATE TABLE job_runs (
  run_id      VARCHAR   NOT NULL,     -- job_…, or the BullMQ job id
  job_name    VARCHAR   NOT NULL,
  job_data    JSON      NOT NULL,
  state       VARCHAR   NOT NULL,     -- running | completed | retrying (BullMQ tries again) | failed
  trigger     VARCHAR   NOT NULL,     -- schedule | manual
  started_at  TIMESTAMP NOT NULL,
  finished_at TIMESTAMP,
  result      JSON,
  error       VARCHAR
);

-- The state of each run: its row with the latest time (a retried attempt's start is later than
-- the previous attempt's end).
CREATE VIEW job_run_states AS
SELECT * FROM job_runs
QUALIFY row_number() OVER (PARTITION BY run_id ORDER BY greatest(started_at, coalesce(finished_at, started_at)) DESC, finished_at DESC NULLS LAST) = 1;
