-- transient_fetch(status): whether a registration-file fetch failed in a way worth retrying soon
-- and not worth believing (a timeout, a network error, HTTP 5xx or 429: pipeline/metadata/safe-get.ts).
-- Scoring keeps what the same URI answered before such a failure (sql/score/agents.sql) and the
-- fetch-metadata job retries it after an hour (sql/metadata/agents_to_fetch.sql). One definition
-- in the database, so the scoring run and the job, on different connections, agree on the list.
CREATE MACRO transient_fetch(status) AS status IN ('timeout', 'network_error', 'server_error');
