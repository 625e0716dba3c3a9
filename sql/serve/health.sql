-- GET /health: the newest scoring run (no row before the first one).
SELECT run_id, model_version, kind, strftime(scored_at, '%Y-%m-%dT%H:%M:%SZ') AS scored_at
  FROM scoring_runs ORDER BY run_id DESC LIMIT 1;
