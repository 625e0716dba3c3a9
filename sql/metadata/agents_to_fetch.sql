-- Agents whose registration file should be fetched now: their current agentURI was never fetched,
-- or was last fetched before the cutoff, or its last fetch failed transiently (transient_fetch(),
-- migration 032: a failure sql/score/agents.sql does not let replace an earlier answer) before the
-- retry cutoff. Never-fetched agents come first, then the stalest.
--
-- The current URI of an on-chain agent is the newest of its Registered and URIUpdated events by
-- (block, log index). An agent known only from an imported file uses its newest import's URI;
-- when the chain has the agent too, the chain wins (imports carry no URI updates).
--
-- $1 chain, or NULL for every chain
-- $2 cutoff TIMESTAMP (UTC): a fetch at this URI older than this is stale
-- $3 row limit, or NULL for no limit
-- $4 retry cutoff TIMESTAMP (UTC): a transient failure at this URI older than this is retried
WITH events AS (
  SELECT chain, registry, agent_id, agent_uri, block_number, log_index FROM agent_registrations
  UNION ALL
  SELECT chain, registry, agent_id, new_uri, block_number, log_index FROM agent_uri_updates
),
onchain AS (
  SELECT chain, registry, agent_id, agent_uri
  FROM events
  QUALIFY row_number() OVER (PARTITION BY chain, registry, agent_id ORDER BY block_number DESC, log_index DESC) = 1
),
imported AS (
  SELECT a.chain, lower(a.registry) AS registry, a.agent_id, a.agent_uri
  FROM imported_agents a
  LEFT JOIN imports i ON i.import_id = a.import_id
  WHERE a.agent_uri IS NOT NULL
  QUALIFY row_number() OVER (
    PARTITION BY a.chain, lower(a.registry), a.agent_id
    ORDER BY i.imported_at DESC NULLS LAST, a.import_id DESC
  ) = 1
),
current_uris AS (
  SELECT * FROM onchain
  UNION ALL
  SELECT * FROM imported m
  WHERE NOT EXISTS (
    SELECT 1 FROM onchain o WHERE o.chain = m.chain AND o.registry = m.registry AND o.agent_id = m.agent_id
  )
),
last_fetch AS (
  SELECT chain, registry, agent_id, agent_uri, max(fetched_at) AS fetched_at,
         transient_fetch(arg_max(fetch_status, fetched_at)) AS transient
  FROM registration_files
  GROUP BY chain, registry, agent_id, agent_uri
)
SELECT
  c.chain,
  c.registry,
  CAST(c.agent_id AS VARCHAR) AS agent_id,
  c.agent_uri,
  f.fetched_at AS last_fetched_at
FROM current_uris c
LEFT JOIN last_fetch f
  ON f.chain = c.chain AND f.registry = c.registry AND f.agent_id = c.agent_id AND f.agent_uri = c.agent_uri
WHERE ($1::VARCHAR IS NULL OR c.chain = $1::VARCHAR)
  AND (f.fetched_at IS NULL OR f.fetched_at < $2::TIMESTAMP OR (f.transient AND f.fetched_at < $4::TIMESTAMP))
ORDER BY f.fetched_at NULLS FIRST, c.chain, c.registry, c.agent_id
LIMIT $3::BIGINT
