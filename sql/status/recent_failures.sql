-- `reputation status`: the newest failed job runs of the 24 hours before $1.
SELECT run_id, job_name, strftime(finished_at, '%Y-%m-%dT%H:%M:%SZ') AS finished_at, error
  FROM job_run_states
 WHERE state = 'failed' AND finished_at > $1 - INTERVAL 24 HOUR
 ORDER BY finished_at DESC
 LIMIT 3;
