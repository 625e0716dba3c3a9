-- The stats body `$1` (`v2`, `x402` or `erc8004`, sql/score/stats.sql) of the newest run that
-- computed one. No row before the first scoring run.
SELECT run_id, body::VARCHAR AS body
  FROM run_stats WHERE name = $1
 ORDER BY run_id DESC LIMIT 1;
