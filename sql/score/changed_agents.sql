-- Incremental runs: the agents whose identity or reputation inputs changed since the previous
-- run, read before the agents are rebuilt (sql/score/agents.sql). Reads `run_params` (the previous
-- run's watermarks) and `previous_cursors` (its block per chain and source; -1 for a source it had
-- not seen): identity and reputation rows above those blocks, imports newer than the previous run,
-- and registration files and evidence written since (stamped when written,
-- pipeline/metadata/fetch-metadata-job.ts).
CREATE OR REPLACE TEMP TABLE changed_agents AS
WITH new_imports AS (
  SELECT import_id FROM imports WHERE imported_at > (SELECT imports_through FROM run_params)
),
identity_rows AS (
  SELECT chain, agent_id, block_number FROM agent_registrations
  UNION ALL SELECT chain, agent_id, block_number FROM agent_uri_updates
  UNION ALL SELECT chain, agent_id, block_number FROM agent_metadata
  UNION ALL SELECT chain, agent_id, block_number FROM agent_transfers
),
reputation_rows AS (
  SELECT chain, agent_id, block_number FROM feedback
  UNION ALL SELECT chain, agent_id, block_number FROM feedback_revocations
)
SELECT i.chain, i.agent_id FROM identity_rows i
  LEFT JOIN previous_cursors p ON p.chain = i.chain AND p.source = 'identity'
 WHERE i.block_number > coalesce(p.block_number, -1)
UNION
SELECT r.chain, r.agent_id FROM reputation_rows r
  LEFT JOIN previous_cursors p ON p.chain = r.chain AND p.source = 'reputation'
 WHERE r.block_number > coalesce(p.block_number, -1)
UNION SELECT chain, agent_id FROM imported_agents   WHERE import_id IN (SELECT import_id FROM new_imports)
UNION SELECT chain, agent_id FROM imported_feedback WHERE import_id IN (SELECT import_id FROM new_imports)
UNION SELECT chain, agent_id FROM registration_files WHERE fetched_at > (SELECT files_through FROM run_params)
UNION SELECT chain, agent_id FROM agent_evidence     WHERE checked_at > (SELECT evidence_through FROM run_params);
