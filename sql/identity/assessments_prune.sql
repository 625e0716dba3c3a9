-- The prune-assessments job: audit rows older than ASSESSMENT_RETENTION_DAYS ($1, the cutoff)
-- are deleted; DuckDB answers with the count.
DELETE FROM assessments WHERE assessed_at < $1;
