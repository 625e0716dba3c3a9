-- The newest scoring run (no row before the first one): GET /health, and the staleness of a
-- known_unscored address's view variant (api/routes/reputation.ts).
SELECT run_id, model_version, kind, strftime(scored_at, '%Y-%m-%dT%H:%M:%SZ') AS scored_at
  FROM scoring_runs ORDER BY run_id DESC LIMIT 1;
