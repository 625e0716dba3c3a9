-- The precomputed records of one address (sql/score/records.sql) and the newest run they belong
-- to, read in one statement so both come from the same snapshot. One row when any run exists;
-- the record columns are null when the address has none. $1 is the address.
SELECT run.run_id, run.model_version, strftime(run.scored_at, '%Y-%m-%dT%H:%M:%SZ') AS scored_at,
       run.inputs::VARCHAR AS inputs, r.record_free, r.record_paid, r.view_facts
  FROM (SELECT * FROM scoring_runs ORDER BY run_id DESC LIMIT 1) run
  LEFT JOIN reputation_records r ON r.address = $1;
