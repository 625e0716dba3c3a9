-- Agent browse (GET /v1/agents, spec 4.10): registered agents of the newest state with whether
-- their payment address (agent_wallet, else owner) has payments (kept in agent_scores by each
-- scoring run, so a page reads agent_scores alone), filtered, in the stable order
-- score desc, chain, agent_id, one page after a keyset position or an offset. One statement so
-- the page and the total come from the same snapshot: a row with total and null item columns
-- when the page is empty.
--   $1 chain, $2 grade, $3 min_score, $4 metadata_quality, $5 entity_type, $6 has_endpoint,
--   $7 has_candidate_payment_activity, $8 has_verified_payment_activity (null: no filter);
--   $9, $10, $11 the keyset position (score, chain, agent_id; null: from the start);
--   $12 limit (page size + 1, to tell whether more follow), $13 offset.
WITH matching AS (
  SELECT a.chain, a.registry, a.agent_id, a.owner, a.agent_wallet,
         coalesce(a.agent_wallet, a.owner) AS payment_address,
         a.name, a.description, a.agent_uri, a.metadata_quality, a.has_endpoint, a.github_url,
         a.registered_at, a.agents_sharing_owner, a.score, a.grade, a.confidence, a.entity_type,
         a.has_candidate_payment_activity, a.has_verified_payment_activity
    FROM agent_scores a
),
filtered AS (
  SELECT * FROM matching
   WHERE ($1::VARCHAR IS NULL OR chain = $1::VARCHAR)
     AND ($2::VARCHAR IS NULL OR grade = $2::VARCHAR)
     AND ($3::DOUBLE IS NULL OR score >= $3::DOUBLE)
     AND ($4::VARCHAR IS NULL OR metadata_quality = $4::VARCHAR)
     AND ($5::VARCHAR IS NULL OR entity_type = $5::VARCHAR)
     AND ($6::BOOLEAN IS NULL OR has_endpoint = $6::BOOLEAN)
     AND ($7::BOOLEAN IS NULL OR has_candidate_payment_activity = $7::BOOLEAN)
     AND ($8::BOOLEAN IS NULL OR has_verified_payment_activity = $8::BOOLEAN)
),
page AS (
  SELECT * FROM filtered
   WHERE $9::INTEGER IS NULL
      OR score < $9::INTEGER
      OR (score = $9::INTEGER AND (chain > $10::VARCHAR OR (chain = $10::VARCHAR AND agent_id > $11::HUGEINT)))
   ORDER BY score DESC, chain, agent_id
   LIMIT $12::INTEGER OFFSET $13::INTEGER
)
SELECT t.total, p.chain, p.registry, p.agent_id::VARCHAR AS agent_id, p.owner, p.agent_wallet, p.payment_address,
       p.name, p.description, p.agent_uri, p.metadata_quality, p.has_endpoint, p.github_url,
       strftime(p.registered_at, '%Y-%m-%dT%H:%M:%SZ') AS registered_at, p.agents_sharing_owner,
       p.score, p.grade, p.confidence, p.entity_type,
       p.has_candidate_payment_activity, p.has_verified_payment_activity
  FROM (SELECT count(*)::INTEGER AS total FROM filtered) t
  LEFT JOIN page p ON true
 ORDER BY p.score DESC, p.chain, p.agent_id;
