-- Addresses in scope: the top-level score. An address that owns registered agents gets the
-- operator score (tail-risk weighted over all its agents on all chains, sql/score/macros.sql);
-- any other address gets its best chain's score. Its roles and activity over all chains (entity
-- type on the best chain, payment counts summed, distinct counterparties, days and months:
-- migrations 020 and 031) are kept beside it, so the run's stats, the legacy browse and the 2.8
-- view read them from this table.
-- A full run replaces every row (sql/score/clear_full.sql): an address no longer in any input loses its score.

-- The rows replaced, with what the stats count them by (sql/score/stats.sql subtracts them), found
-- in one scan; the delete then finds them by row id, not by comparing every address again.
CREATE OR REPLACE TEMP TABLE replaced_addresses AS
SELECT rowid AS row_id, entity_type, score, candidate_as_payer, candidate_as_payee, verified_as_payer,
       verified_as_payee, is_known_erc8004_agent
  FROM address_scores
 WHERE NOT getvariable('is_full') AND address IN (SELECT address FROM scope_addresses);

DELETE FROM address_scores s USING replaced_addresses r WHERE s.rowid = r.row_id;

-- The chain rows of the addresses in scope are those this run wrote (sql/score/chain_scores.sql;
-- every row in a full run), found by the run id rather than by a join with every address.
CREATE OR REPLACE TEMP MACRO scoped_chain_rows() AS TABLE SELECT * FROM chain_scores WHERE run_id = getvariable('run_id');

-- Few addresses are on more than one chain; only they need aggregates, which cost seconds per
-- million groups. Their counterparties, active days and months over all chains are distinct
-- counts of their pairs and months (a counterparty or a day on two chains counts once; a
-- counterparty in both directions once, as in sql/score/payment_facts.sql), read only when there is such an
-- address: the variable makes the filter of those scans a constant.
CREATE OR REPLACE TEMP TABLE multi_chain AS
SELECT address FROM scoped_chain_rows() GROUP BY address HAVING count(*) > 1;
SET VARIABLE any_multi_chain = (SELECT count(*) > 0 FROM multi_chain);

CREATE OR REPLACE TEMP TABLE multi_chain_activity AS
WITH pairs AS MATERIALIZED (  -- one scan for both sides
  SELECT payer, payee FROM payment_pairs
   WHERE getvariable('any_multi_chain')
     AND (payer IN (SELECT address FROM multi_chain) OR payee IN (SELECT address FROM multi_chain))
),
sides AS (
  SELECT payer AS address, payee AS counterparty FROM pairs
  UNION ALL SELECT payee, payer FROM pairs
),
months AS (           -- a day's bit set on any chain
  SELECT address, month, bit_or(days) AS days FROM payment_months
   WHERE getvariable('any_multi_chain') AND address IN (SELECT address FROM multi_chain)
   GROUP BY address, month
)
SELECT m.address, coalesce(c.n, 0)::INTEGER AS counterparties_count,
       coalesce(d.active_days, 0)::INTEGER AS active_days, coalesce(d.active_months, 0)::INTEGER AS active_months
  FROM multi_chain m
  -- the sides of their counterparties group too, and find no multi_chain row to join
  LEFT JOIN (SELECT address, count(DISTINCT counterparty) AS n FROM sides GROUP BY address) c USING (address)
  LEFT JOIN (SELECT address, sum(bit_count(days)) AS active_days, count(*) AS active_months FROM months GROUP BY address) d USING (address);

INSERT INTO address_scores
WITH per_address AS ( -- chains best first: highest score, then chain name
  SELECT address, [chain] AS chains, score AS best, entity_type, candidate_as_payer, candidate_as_payee,
         verified_as_payer, verified_as_payee, is_known_erc8004_agent, volume_usdc, counterparties_count,
         active_months, first_candidate_tx_at, last_candidate_tx_at, active_days
    FROM scoped_chain_rows() ANTI JOIN multi_chain USING (address)
  UNION ALL
  SELECT c.address, list(c.chain ORDER BY c.score DESC, c.chain), max(c.score), arg_min(c.entity_type, {'score': -c.score, 'chain': c.chain}),
         sum(c.candidate_as_payer)::INTEGER, sum(c.candidate_as_payee)::INTEGER,
         sum(c.verified_as_payer)::INTEGER, sum(c.verified_as_payee)::INTEGER, bool_or(c.is_known_erc8004_agent),
         sum(c.volume_usdc), any_value(m.counterparties_count), any_value(m.active_months),
         min(c.first_candidate_tx_at), max(c.last_candidate_tx_at), any_value(m.active_days)
    FROM scoped_chain_rows() c JOIN multi_chain_activity m USING (address)
   GROUP BY c.address
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
       p.first_candidate_tx_at, p.last_candidate_tx_at, p.active_days
  FROM per_address p LEFT JOIN owned o USING (address)
 ORDER BY p.address;
