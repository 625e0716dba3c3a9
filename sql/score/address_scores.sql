-- Addresses in scope: the top-level score. An address that owns registered agents gets the
-- operator score (tail-risk weighted over all its agents on all chains, sql/score/macros.sql);
-- any other address gets its best chain's score. Its roles over all chains (entity type on the
-- best chain, payment counts summed) are kept beside it, so the run's stats are one pass over
-- this table (sql/score/stats.sql).
-- A full run replaces every row: an address no longer in any input loses its score.
DELETE FROM address_scores WHERE getvariable('is_full');
DELETE FROM address_scores WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM scope_addresses);

INSERT INTO address_scores
WITH scoped AS (      -- the chain rows of the addresses in scope
  SELECT * FROM chain_scores WHERE getvariable('is_full')
  UNION ALL SELECT * FROM chain_scores WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM scope_addresses)
),
per_address AS (
  SELECT address, count(*) AS n, max(score) AS best, any_value(chain) AS any_chain, any_value(entity_type) AS any_entity_type,
         sum(candidate_as_payer)::INTEGER AS candidate_as_payer, sum(candidate_as_payee)::INTEGER AS candidate_as_payee,
         sum(verified_as_payer)::INTEGER AS verified_as_payer, sum(verified_as_payee)::INTEGER AS verified_as_payee,
         bool_or(is_known_erc8004_agent) AS is_known_erc8004_agent
    FROM scoped GROUP BY address
),
chains AS (           -- best chain first. Most addresses are on one chain: they need no ordered
                      -- aggregate, which costs seconds per million groups.
  SELECT address, [any_chain] AS chains, any_entity_type AS entity_type FROM per_address WHERE n = 1
  UNION ALL
  SELECT address, list(chain ORDER BY score DESC, chain), arg_min(entity_type, {'score': -score, 'chain': chain})
    FROM chain_scores WHERE address IN (SELECT address FROM per_address WHERE n > 1)
   GROUP BY address
),
owned AS (
  SELECT owner AS address, operator_score(list(score)) AS operator_score, count(*)::INTEGER AS agent_count,
         list_sort(list_distinct(list(chain))) AS chains_active
    FROM (SELECT * FROM agent_scores WHERE getvariable('is_full')
          UNION ALL SELECT * FROM agent_scores WHERE NOT getvariable('is_full') AND owner IN (SELECT address FROM scope_addresses))
   GROUP BY owner
)
SELECT (SELECT run_id FROM run_params), c.address,
       coalesce(o.operator_score, p.best) AS score, grade_of(coalesce(o.operator_score, p.best)) AS grade,
       c.chains, o.operator_score, grade_of(o.operator_score) AS operator_grade,
       coalesce(o.agent_count, 0), coalesce(o.chains_active, []),
       c.entity_type, p.candidate_as_payer, p.candidate_as_payee, p.verified_as_payer, p.verified_as_payee,
       p.is_known_erc8004_agent
  FROM chains c JOIN per_address p USING (address) LEFT JOIN owned o USING (address)
 ORDER BY c.address;
