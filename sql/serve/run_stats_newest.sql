-- The newest run id with a stats body `$1`: what the in-memory stats cache compares against
-- (null before the first scoring run).
SELECT max(run_id) AS run_id FROM run_stats WHERE name = $1;
