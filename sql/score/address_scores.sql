-- Addresses in scope: the top-level score. An address that owns registered agents gets the
-- operator score (tail-risk weighted over all its agents on all chains, sql/score/macros.sql);
-- any other address gets its best chain's score.
-- A full run replaces every row: an address no longer in any input loses its score.
DELETE FROM address_scores WHERE (SELECT is_full FROM run_params) OR address IN (SELECT address FROM scope_addresses);

INSERT INTO address_scores
WITH per_address AS (
  SELECT address, count(*) AS n, max(score) AS best, any_value(chain) AS any_chain
    FROM chain_scores WHERE (SELECT is_full FROM run_params) OR address IN (SELECT address FROM scope_addresses)
   GROUP BY address
),
chains AS (           -- best chain first. Most addresses are on one chain: they need no ordered
                      -- aggregate, which costs seconds per million groups.
  SELECT address, [any_chain] AS chains, best FROM per_address WHERE n = 1
  UNION ALL
  SELECT address, list(chain ORDER BY score DESC, chain), max(score)
    FROM chain_scores WHERE address IN (SELECT address FROM per_address WHERE n > 1)
   GROUP BY address
),
owned AS (
  SELECT owner AS address, operator_score(list(score)) AS operator_score, count(*)::INTEGER AS agent_count,
         list_sort(list_distinct(list(chain))) AS chains_active
    FROM agent_scores WHERE owner IN (SELECT address FROM scope_addresses)
   GROUP BY owner
)
SELECT (SELECT run_id FROM run_params), c.address,
       coalesce(o.operator_score, c.best) AS score, grade_of(coalesce(o.operator_score, c.best)) AS grade,
       c.chains, o.operator_score, grade_of(o.operator_score) AS operator_grade,
       coalesce(o.agent_count, 0), coalesce(o.chains_active, [])
  FROM chains c LEFT JOIN owned o USING (address)
 ORDER BY c.address;
