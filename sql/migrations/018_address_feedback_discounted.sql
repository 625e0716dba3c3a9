-- Whether some feedback to the address's agents carries no weight (a record's sybil caveat),
-- decided by the run (sql/score/records.sql) instead of a scan of feedback_weights on every
-- lookup. The next run fills it for the addresses it rescores; a full run for all.
ALTER TABLE address_feedback ADD COLUMN weightless_feedback BOOLEAN DEFAULT false;
