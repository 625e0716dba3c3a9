-- Addresses in scope: the top-level score. An address that owns registered agents gets the
-- operator score (tail-risk weighted over all its agents on all chains, sql/score/macros.sql);
-- any other address gets its best chain's score. Its roles and activity over all chains (entity
-- type on the best chain, payment counts summed, …: migration 020) are kept beside it, so the
-- run's stats and the legacy browse are one pass over this table.
-- A full run replaces every row: an address no longer in any input loses its score.
DELETE FROM address_scores WHERE getvariable('is_full');

-- The rows replaced, with what the stats count them by (sql/score/stats.sql subtracts them), found
-- in one scan; the delete then finds them by row id, not by comparing every address again.
CREATE OR REPLACE TEMP TABLE replaced_addresses AS
SELECT rowid AS row_id, entity_type, score, candidate_as_payer, candidate_as_payee, verified_as_payer,
       verified_as_payee, is_known_erc8004_agent
  FROM address_scores
 WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM scope_addresses);

DELETE FROM address_scores s USING replaced_addresses r WHERE s.rowid = r.row_id;

INSERT INTO address_scores
WITH scoped AS NOT MATERIALIZED (  -- the chain rows of the addresses in scope: those this run
                                   -- wrote (sql/score/chain_scores.sql; every row in a full run),
                                   -- found by the run id rather than by a join with every address
  SELECT * FROM chain_scores WHERE run_id = getvariable('run_id')
),
multi_chain AS (      -- few addresses are on more than one chain; only they need aggregates, which
                      -- cost seconds per million groups
  SELECT address FROM scoped GROUP BY address HAVING count(*) > 1
),
per_address AS (      -- chains best first: highest score, then chain name
  SELECT address, [chain] AS chains, score AS best, entity_type, candidate_as_payer, candidate_as_payee,
         verified_as_payer, verified_as_payee, is_known_erc8004_agent, volume_usdc, counterparties_count,
         active_months, first_candidate_tx_at, last_candidate_tx_at
    FROM scoped ANTI JOIN multi_chain USING (address)
  UNION ALL
  SELECT address, list(chain ORDER BY score DESC, chain), max(score), arg_min(entity_type, {'score': -score, 'chain': chain}),
         sum(candidate_as_payer)::INTEGER, sum(candidate_as_payee)::INTEGER,
         sum(verified_as_payer)::INTEGER, sum(verified_as_payee)::INTEGER, bool_or(is_known_erc8004_agent),
         sum(volume_usdc), sum(counterparties_count)::INTEGER, max(active_months),
         min(first_candidate_tx_at), max(last_candidate_tx_at)
    FROM scoped SEMI JOIN multi_chain USING (address)
   GROUP BY address
),
owned AS (
  SELECT owner AS address, operator_score(list(score)) AS operator_score, count(*)::INTEGER AS agent_count,
         list_sort(list_distinct(list(chain))) AS chains_active
    FROM (SELECT * FROM agent_scores WHERE getvariable('is_full')
          UNION ALL SELECT * FROM agent_scores WHERE NOT getvariable('is_full') AND owner IN (SELECT address FROM scope_addresses))
   GROUP BY owner
)
SELECT (SELECT run_id FROM run_params), p.address,
       coalesce(o.operator_score, p.best) AS score, grade_of(coalesce(o.operator_score, p.best)) AS grade,
       p.chains, o.operator_score, grade_of(o.operator_score) AS operator_grade,
       coalesce(o.agent_count, 0), coalesce(o.chains_active, []),
       p.entity_type, p.candidate_as_payer, p.candidate_as_payee, p.verified_as_payer, p.verified_as_payee,
       p.is_known_erc8004_agent, p.volume_usdc, p.counterparties_count, p.active_months,
       p.first_candidate_tx_at, p.last_candidate_tx_at
  FROM per_address p LEFT JOIN owned o USING (address)
 ORDER BY p.address;
