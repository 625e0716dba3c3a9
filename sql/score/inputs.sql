-- The watermarks of everything a run reads, recorded with the run; the next run compares them to
-- tell what changed (sql/score/changed.sql). $1 is the model version.
WITH cursors AS (
  SELECT DISTINCT ON (chain, source) chain, source, block_number, block_hash
    FROM ingest_cursors ORDER BY chain, source, block_number DESC
)
SELECT to_json({
  'model_version': $1::VARCHAR,
  'facilitators': (SELECT md5(coalesce(string_agg(network || ':' || address, ',' ORDER BY network, address), '')) FROM facilitators),
  'cursors': (SELECT coalesce(list({'chain': chain, 'source': source, 'block': block_number, 'hash': block_hash} ORDER BY chain, source), [])
                FROM cursors),
  'imports_through': (SELECT strftime(max(imported_at), '%Y-%m-%d %H:%M:%S.%f') FROM imports),
  'files_through': (SELECT strftime(max(fetched_at), '%Y-%m-%d %H:%M:%S.%f') FROM registration_files),
  'evidence_through': (SELECT strftime(max(checked_at), '%Y-%m-%d %H:%M:%S.%f') FROM agent_evidence),
  'known_through': (SELECT strftime(max(first_seen_at), '%Y-%m-%d %H:%M:%S.%f') FROM known_addresses)
})::VARCHAR AS inputs;
