-- Keeps registered_agents (migration 025): every registered agent as it stands now (all chains),
-- with its owner, payment address, registration file and evidence. A full run rebuilds every row
-- (sql/score/clear_full.sql empties the table);
-- any other run the rows of changed_agents (sql/score/changed_agents.sql), from every identity row
-- of those agents. Agents are keyed by (chain, agent_id): each chain has one identity registry.

-- The rows of table t for the agents this run rebuilds: all of them in a full run.
CREATE OR REPLACE TEMP MACRO agent_rows(t) AS TABLE
  SELECT * FROM query_table(t) WHERE getvariable('is_full')
  UNION ALL
  SELECT r.* FROM query_table(t) r SEMI JOIN changed_agents c ON c.chain = r.chain AND c.agent_id = r.agent_id
   WHERE NOT getvariable('is_full');

DELETE FROM registered_agents a USING changed_agents c
 WHERE NOT getvariable('is_full') AND c.chain = a.chain AND c.agent_id = a.agent_id;

INSERT INTO registered_agents
WITH registered AS (
  -- Chain registrations win over imported ones.
  SELECT DISTINCT ON (chain, agent_id) *
    FROM (SELECT chain, registry, agent_id, agent_uri, owner, block_number, 0 AS imported FROM agent_rows('agent_registrations')
          UNION ALL
          SELECT chain, registry, agent_id, coalesce(agent_uri, ''), owner, registered_block, 1 FROM agent_rows('imported_agents'))
   ORDER BY chain, agent_id, imported, block_number
),
newest_transfer AS (  -- the newest ERC-721 transfer names the owner
  SELECT DISTINCT ON (chain, agent_id) chain, agent_id, to_address AS owner
    FROM agent_rows('agent_transfers') ORDER BY chain, agent_id, block_number DESC, log_index DESC
),
newest_move AS (      -- a transfer after the mint clears agentWallet (ERC-8004)
  SELECT chain, agent_id, max(block_number * 1000000 + log_index) AS position
    FROM agent_rows('agent_transfers') WHERE from_address <> '0x0000000000000000000000000000000000000000'
   GROUP BY chain, agent_id
),
newest_wallet AS (
  SELECT DISTINCT ON (chain, agent_id) chain, agent_id, block_number * 1000000 + log_index AS position,
         CASE WHEN length(metadata_value) >= 42 AND right(lower(metadata_value), 40) <> repeat('0', 40)
              THEN '0x' || right(lower(metadata_value), 40) END AS wallet
    FROM agent_rows('agent_metadata') WHERE metadata_key = 'agentWallet'
   ORDER BY chain, agent_id, block_number DESC, log_index DESC
),
newest_uri AS (
  SELECT DISTINCT ON (chain, agent_id) chain, agent_id, new_uri
    FROM agent_rows('agent_uri_updates') ORDER BY chain, agent_id, block_number DESC, log_index DESC
),
fetches AS (          -- with when the same URI last answered (a file, or a definite failure); the
                      -- fetch-metadata job retries transient failures sooner (sql/metadata/agents_to_fetch.sql)
  SELECT *, max(CASE WHEN NOT transient THEN fetched_at END)
              OVER (PARTITION BY chain, agent_id, agent_uri ORDER BY fetched_at) AS answered_at
    FROM (SELECT *, transient_fetch(fetch_status) AS transient
            FROM agent_rows('registration_files'))
),
newest_file AS (      -- a transient failure does not replace what the same URI answered in the 7
                      -- days before it: a server down for an hour must not cost the agent its
                      -- identity until the next fetch a day later; failing for longer, it counts
  SELECT DISTINCT ON (chain, agent_id) *,
         from_json(services, '[{"name": "VARCHAR", "endpoint": "VARCHAR"}]') AS service_list
    FROM fetches
   WHERE NOT transient OR answered_at IS NULL OR answered_at < fetched_at - INTERVAL 7 DAY
   ORDER BY chain, agent_id, fetched_at DESC
),
newest_evidence AS (
  SELECT DISTINCT ON (chain, agent_id) * FROM agent_rows('agent_evidence') ORDER BY chain, agent_id, checked_at DESC
)
SELECT r.chain, r.registry, r.agent_id,
       coalesce(t.owner, r.owner)                                           AS owner,
       CASE WHEN w.position > coalesce(m.position, -1) THEN w.wallet END    AS agent_wallet,
       coalesce(CASE WHEN w.position > coalesce(m.position, -1) THEN w.wallet END, coalesce(t.owner, r.owner)) AS pay_to,
       coalesce(u.new_uri, r.agent_uri)                                     AS agent_uri,
       f.name, f.description, f.metadata_kind,
       coalesce(f.metadata_quality, 'unknown')                              AS metadata_quality,
       f.x402_support, f.active,
       coalesce(len(f.service_list), 0)                                     AS service_count,
       list_filter(f.service_list, s -> lower(s.name) = 'ens')[1].endpoint  AS ens_name,
       coalesce(e.website_url, list_filter(f.service_list, s -> lower(s.name) = 'web')[1].endpoint) AS website_url,
       e.github_url, e.github_stars, e.has_a2a_agent_card, e.website_reachable,
       e.website_mentions_mcp, e.website_mentions_x402,
       b.block_time                                                         AS registered_at
  FROM registered r
  LEFT JOIN newest_transfer t USING (chain, agent_id)
  LEFT JOIN newest_move     m USING (chain, agent_id)
  LEFT JOIN newest_wallet   w USING (chain, agent_id)
  LEFT JOIN newest_uri      u USING (chain, agent_id)
  LEFT JOIN newest_file     f USING (chain, agent_id)
  LEFT JOIN newest_evidence e USING (chain, agent_id)
  LEFT JOIN chain_blocks    b ON b.chain = r.chain AND b.source = 'identity' AND b.block_number = r.block_number;
