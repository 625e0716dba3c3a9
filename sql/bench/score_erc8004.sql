-- Synthetic data for `npm run bench -- score`, step 3 of 3: ERC-8004 agents, their registration
-- files and evidence, and feedback, as the identity and reputation sources and the fetch-metadata
-- job write them. Runs after the payments are written (honest feedback comes from real payers).
-- Variables: bench_agents, bench_addresses, bench_services, bench_head (score_data.sql),
-- bench_identity, bench_reputation, bench_identity_start (the base profile's registries).
--
-- Agents: ids 0..A-1 registered in id order between the identity registry's first block and the
-- head. Fleet sizes are power-law (the biggest owner has ~3% of the agents); 85% have an agentWallet
-- set at registration, a distinct service address (so it is paid); 2% were transferred later
-- (agentWallet cleared, then the ERC-721 Transfer). Registration files: 80% fetched; of those 15%
-- failed (unknown), the rest real or placeholder by the agent's quality.
-- Feedback, 10 per agent: 50% from clients who paid the agent's wallet (a uniform sample of those
-- payments, so busy agents get more), 15% from addresses active elsewhere that never paid it, 35%
-- from a sybil farm (fresh addresses, 4 ratings each, top marks) boosting 1% of the agents; 3% of
-- the honest ones revoked a day later.

CREATE OR REPLACE TEMP TABLE bench_agents AS
WITH drawn AS (
  SELECT a AS agent_id,
         getvariable('bench_identity_start') + 10
           + (a * (getvariable('bench_head') - getvariable('bench_identity_start') - 50000) // getvariable('bench_agents'))::BIGINT AS block_number,
         (a % 1000)::INTEGER * 4 AS log_index,  -- Transfer (mint), MetadataUpdate (not stored), Registered, MetadataSet
         -- Fleet sizes follow the power law; the owners themselves are spread over the addresses
         -- (x -> (x * 7919 + 12345) % N is a bijection), so the biggest fleet's owner is not also
         -- the busiest payer and payee.
         bench_address((floor(getvariable('bench_addresses') * pow(bench_uniform(a, 'owner'), 4))::BIGINT * 7919 + 12345)
                       % getvariable('bench_addresses')) AS owner,
         CASE WHEN bench_uniform(a, 'wallet') < 0.85 THEN (a * 7919) % getvariable('bench_services') END AS wallet_id,
         bench_uniform(a, 'quality') AS quality,
         bench_uniform(a, 'uri') AS uri_kind,
         bench_uniform(a, 'fetch') AS fetched,
         (bench_uniform(a, 'sybil') < 0.01 OR a = getvariable('bench_agents') // 2) AS sybil_target,
         bench_uniform(a, 'transfer') < 0.02 AS transferred
    FROM range(getvariable('bench_agents')) t(a)
)
SELECT *, CASE WHEN wallet_id IS NOT NULL THEN bench_address(wallet_id) END AS wallet FROM drawn;

INSERT INTO agent_transfers
SELECT 'base', block_number, bench_bytes32('register', agent_id), log_index, getvariable('bench_identity'), agent_id,
       '0x0000000000000000000000000000000000000000', owner
  FROM bench_agents
UNION ALL
SELECT 'base', block_number + 1, bench_bytes32('transfer', agent_id), log_index + 1, getvariable('bench_identity'), agent_id,
       owner, bench_address(hash(agent_id, 'new owner') % getvariable('bench_addresses'))
  FROM bench_agents WHERE transferred;

INSERT INTO agent_registrations
SELECT 'base', block_number, bench_bytes32('register', agent_id), log_index + 2, getvariable('bench_identity'), agent_id,
       CASE WHEN uri_kind < 0.6 THEN 'https://agent' || agent_id || '.bench-agents.xyz/.well-known/agent-registration.json'
            WHEN uri_kind < 0.9 THEN 'ipfs://bafkrei' || md5('uri' || agent_id)
            ELSE 'data:application/json;base64,' || to_base64(('{"name":"Bench agent ' || agent_id || '"}')::BLOB) END,
       owner
  FROM bench_agents;

INSERT INTO agent_metadata
SELECT 'base', block_number, bench_bytes32('register', agent_id), log_index + 3, getvariable('bench_identity'), agent_id, 'agentWallet', wallet
  FROM bench_agents WHERE wallet IS NOT NULL
UNION ALL
SELECT 'base', block_number + 1, bench_bytes32('transfer', agent_id), log_index, getvariable('bench_identity'), agent_id, 'agentWallet', '0x'
  FROM bench_agents WHERE transferred AND wallet IS NOT NULL;

INSERT INTO registration_files
SELECT 'base', r.registry, r.agent_id, r.agent_uri,
       TIMESTAMP '2026-11-01 01:00:00' + to_seconds(r.agent_id::BIGINT) AS fetched_at,
       CASE WHEN failed THEN 'http_error' ELSE 'ok' END,
       CASE WHEN failed THEN NULL WHEN a.uri_kind < 0.6 THEN 'https' WHEN a.uri_kind < 0.9 THEN 'ipfs' ELSE 'data' END,
       CASE WHEN failed THEN NULL ELSE md5('file' || r.agent_id) || md5(r.agent_id || 'file') END,
       CASE WHEN failed THEN NULL WHEN is_real THEN 'Bench ' || (['Scout', 'Ledger', 'Oracle', 'Courier', 'Analyst'])[1 + (r.agent_id % 5)::INTEGER] || ' ' || md5('name' || r.agent_id)[1:6]
            ELSE 'Agent #' || r.agent_id END,
       CASE WHEN failed THEN NULL WHEN is_real THEN 'Answers market data questions and settles each call over x402 in USDC on Base.' END,
       NULL,
       CASE WHEN failed THEN NULL ELSE is_real END,
       CASE WHEN failed THEN NULL ELSE true END,
       CASE WHEN failed THEN NULL WHEN is_real
            THEN json_array(json_object('name', 'MCP', 'endpoint', 'https://agent' || r.agent_id || '.bench-agents.xyz/mcp', 'version', '2025-06-18'))
            ELSE '[]'::JSON END,
       CASE WHEN failed THEN NULL ELSE '["reputation"]'::JSON END,
       CASE WHEN failed THEN 'unknown' WHEN is_real THEN 'real' ELSE 'placeholder' END,
       CASE WHEN failed THEN 'HTTP 404' END
  FROM agent_registrations r
  JOIN (SELECT agent_id, uri_kind, fetched, fetched < 0.12 AS failed, quality >= 0.5 AS is_real FROM bench_agents) a USING (agent_id)
 WHERE r.chain = 'base' AND r.registry = getvariable('bench_identity') AND a.fetched < 0.8;

-- The job gathers evidence whenever the file could be judged.
INSERT INTO agent_evidence
SELECT f.chain, f.registry, f.agent_id, f.fetched_at + INTERVAL 1 SECOND,
       is_real AND bench_uniform(f.agent_id, 'a2a') < 0.3,
       CASE WHEN is_real THEN 'https://agent' || f.agent_id || '.bench-agents.xyz' END,
       CASE WHEN is_real THEN bench_uniform(f.agent_id, 'reachable') < 0.8 END,
       CASE WHEN is_real THEN bench_uniform(f.agent_id, 'mcp') < 0.5 END,
       CASE WHEN is_real THEN bench_uniform(f.agent_id, 'x402') < 0.4 END,
       CASE WHEN is_real AND bench_uniform(f.agent_id, 'github') < 0.2 THEN 'https://github.com/bench-agents/agent-' || f.agent_id END,
       NULL
  FROM (SELECT *, metadata_quality = 'real' AS is_real FROM registration_files) f
 WHERE f.chain = 'base' AND f.registry = getvariable('bench_identity') AND f.metadata_quality <> 'unknown';

-- Reputation events before their log indexes: kind 0 honest paid, 1 active elsewhere, 2 sybil.
CREATE OR REPLACE TEMP TABLE bench_feedback AS
WITH paid AS (
  SELECT a.agent_id, bench_address(p.payer_id) AS client, greatest(p.block_number, a.block_number) AS after, 'p' || p.seed AS seed
    FROM bench_new_payments p JOIN bench_agents a ON a.wallet_id = p.payee_id
   WHERE p.seed % 4 = 0  -- a quarter of the payments is plenty to sample from, and 4 times cheaper
   ORDER BY hash(p.seed, 'feedback')
   LIMIT getvariable('bench_agents') * 5
),
elsewhere AS (
  SELECT a.agent_id, bench_address(hash(k, 'elsewhere') % getvariable('bench_addresses')) AS client,
         a.block_number AS after, 'e' || k AS seed
    FROM range(getvariable('bench_agents') * 3 // 2) t(k)
    JOIN bench_agents a ON a.agent_id = hash(k, 'elsewhere agent') % getvariable('bench_agents')
),
targets AS (
  SELECT agent_id, block_number, row_number() OVER (ORDER BY agent_id) - 1 AS n, count(*) OVER () AS targets
    FROM bench_agents WHERE sybil_target
),
sybil AS (
  SELECT t.agent_id, bench_sybil(k // 4) AS client, t.block_number + 100 + k // t.targets AS after, 's' || k AS seed
    FROM range(getvariable('bench_agents') * 7 // 2) r(k)
    JOIN targets t ON t.n = k % t.targets
),
events AS (
  SELECT 0 AS kind, * FROM paid
  UNION ALL SELECT 1, * FROM elsewhere
  UNION ALL SELECT 2, * FROM sybil
)
SELECT e.kind, e.agent_id, e.client, e.seed,
       CASE WHEN e.kind = 2 THEN e.after ELSE e.after + 1 + floor(7 * 43200 * bench_uniform(e.seed, 'delay'))::BIGINT END AS block_number,
       CASE WHEN e.kind = 2 THEN (['starred', 'successRate'])[1 + (hash(e.seed, 'tag') % 2)::INTEGER]
            ELSE (['starred', 'uptime', 'reachable', 'successRate'])[1 + (hash(e.seed, 'tag') % 4)::INTEGER] END AS tag1,
       a.quality,
       bench_uniform(e.seed, 'noise') AS noise
  FROM events e JOIN bench_agents a USING (agent_id);
DELETE FROM bench_feedback WHERE block_number >= getvariable('bench_head');

CREATE OR REPLACE TEMP TABLE bench_reputation AS
WITH revoked AS (
  SELECT * FROM bench_feedback WHERE kind < 2 AND bench_uniform(seed, 'revoke') < 0.03 AND block_number + 43200 < getvariable('bench_head')
),
events AS (
  SELECT 'feedback' AS event, *,
         row_number() OVER (PARTITION BY agent_id, client ORDER BY block_number, seed) AS feedback_index
    FROM bench_feedback
),
all_events AS (
  SELECT * FROM events
  UNION ALL
  SELECT 'revocation', r.* REPLACE (r.block_number + 43200 AS block_number), e.feedback_index
    FROM revoked r JOIN events e USING (agent_id, client, seed)
)
SELECT *, (row_number() OVER (PARTITION BY block_number ORDER BY event, agent_id, client, feedback_index) - 1)::INTEGER AS log_index
  FROM all_events;

INSERT INTO feedback
SELECT 'base', block_number, bench_bytes32('feedback', event || seed || agent_id), log_index, getvariable('bench_reputation'), agent_id, client,
       feedback_index,
       CASE WHEN kind = 2 THEN (CASE tag1 WHEN 'starred' THEN 95 + floor(6 * noise) ELSE 100 END)
            ELSE CASE tag1
                   WHEN 'starred' THEN greatest(0, least(100, round(quality * 100 + (noise - 0.5) * 30)))
                   WHEN 'uptime' THEN 9000 + greatest(0, least(999, round(quality * 999 + (noise - 0.5) * 200)))
                   WHEN 'reachable' THEN (noise < quality)::INTEGER
                   ELSE greatest(0, least(100, round(quality * 100 + (noise - 0.5) * 20))) END END::HUGEINT,
       CASE WHEN tag1 = 'uptime' AND kind < 2 THEN 2 ELSE 0 END,
       tag1,
       CASE WHEN kind < 2 AND bench_uniform(seed, 'tag2') < 0.3 THEN (['mcp', 'a2a', 'week'])[1 + (hash(seed, 'tag2') % 3)::INTEGER] ELSE '' END,
       '',
       CASE WHEN kind < 2 AND bench_uniform(seed, 'file') < 0.35 THEN 'ipfs://bafkrei' || md5('feedback file' || seed) ELSE '' END,
       CASE WHEN kind < 2 AND bench_uniform(seed, 'file') < 0.35 THEN bench_bytes32('feedback file', seed)
            ELSE '0x0000000000000000000000000000000000000000000000000000000000000000' END
  FROM bench_reputation WHERE event = 'feedback';

INSERT INTO feedback_revocations
SELECT 'base', block_number, bench_bytes32('revocation', seed || agent_id), log_index, getvariable('bench_reputation'), agent_id, client, feedback_index
  FROM bench_reputation WHERE event = 'revocation';

INSERT INTO chain_blocks (chain, block_number, block_hash, block_time, source)
SELECT 'base', block_number, bench_block_hash(block_number), bench_block_time(block_number), source
  FROM (SELECT block_number, 'identity' AS source FROM agent_registrations
        UNION SELECT block_number, 'identity' FROM agent_transfers
        UNION SELECT block_number, 'reputation' FROM bench_reputation
        UNION SELECT getvariable('bench_head'), 'identity'
        UNION SELECT getvariable('bench_head'), 'reputation');

INSERT INTO ingest_cursors
SELECT 'base', source, getvariable('bench_head'), bench_block_hash(getvariable('bench_head')), utc_now()
  FROM (VALUES ('identity'), ('reputation')) s(source);

DROP TABLE bench_agents;
DROP TABLE bench_feedback;
DROP TABLE bench_reputation;
DROP TABLE bench_new_payments;
