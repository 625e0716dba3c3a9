-- `reputation status` (api/admin/status.ts): one row of what an operator of the service checks
-- first. Timestamps are UTC (utc_now(), migration 005); $1 is the time the status is taken at.
WITH newest_run AS (SELECT run_id, kind, scored_at FROM scoring_runs ORDER BY run_id DESC LIMIT 1),
     address_list AS (SELECT loaded_at, address_count FROM sanctions_list_loads ORDER BY loaded_at DESC LIMIT 1),
     name_list AS (SELECT loaded_at, name_count, birth_count FROM sanctioned_name_loads ORDER BY loaded_at DESC LIMIT 1),
     waiting AS (SELECT count(*)::INTEGER AS n, min(completed_at) AS oldest
                   FROM verification_sessions WHERE status = 'flagged' AND review_decision IS NULL),
     runs AS (SELECT state, finished_at FROM job_run_states)
SELECT (SELECT run_id FROM newest_run) AS last_run_id,
       (SELECT kind FROM newest_run) AS last_run_kind,
       strftime((SELECT scored_at FROM newest_run), '%Y-%m-%dT%H:%M:%SZ') AS last_scored_at,
       strftime((SELECT loaded_at FROM address_list), '%Y-%m-%dT%H:%M:%SZ') AS list_loaded_at,
       strftime(greatest((SELECT loaded_at FROM address_list), (SELECT max(checked_at) FROM sanctions_list_checks)), '%Y-%m-%dT%H:%M:%SZ') AS list_checked_at,
       (SELECT address_count FROM address_list) AS listed_addresses,
       strftime((SELECT loaded_at FROM name_list), '%Y-%m-%dT%H:%M:%SZ') AS names_loaded_at,
       (SELECT name_count FROM name_list) AS listed_names,
       (SELECT birth_count FROM name_list) AS listed_births,
       (SELECT count(*)::INTEGER FROM operators) AS operators,
       (SELECT n FROM waiting) AS flagged_waiting,
       strftime((SELECT oldest FROM waiting), '%Y-%m-%dT%H:%M:%SZ') AS oldest_flagged_at,
       (SELECT count(*)::INTEGER FROM operator_tokens WHERE revoked_at IS NULL AND expires_at > $1) AS active_tokens,
       (SELECT count(*)::INTEGER FROM runs WHERE state = 'running') AS jobs_running,
       (SELECT count(*)::INTEGER FROM runs WHERE state = 'failed' AND finished_at > $1 - INTERVAL 24 HOUR) AS jobs_failed_24h;
