-- The activity facts of the payments: per (chain, address), each payment counted on both sides,
-- as payer and as payee (spec 2.7 `activity`). They are kept in the activity columns of
-- chain_scores, whose rows hold every address with payments (sql/score/chain_scores.sql; a row
-- has facts when it has candidate payments). The facts of every address either side of a payment
-- this run added or removed (paid_addresses, sql/score/payments.sql; every address in a rebuild)
-- are computed again here from its pairs and months, not from the payments: distinct counts come
-- from them (a pair is a counterparty, a month row an active month, a bit in it an active day)
-- instead of count(DISTINCT …) over every payment. Every run rescores the paid addresses (they
-- are in its scope), so the other addresses' rows hold their current facts, and a full run that
-- rebuilds nothing reads them instead of aggregating every pair again (sql/score/facts.sql).

-- The chain rows this run reads, in one scan before it changes any: those of the addresses and
-- clients in its scope (fact_addresses, sql/score/scope.sql), for their facts, and those of the
-- paid addresses (their active days and months are brought up to date from them); with their row
-- ids and whether the run replaces them (its scope: sql/score/chain_scores.sql deletes them by row
-- id, sql/score/stats.sql subtracts them). A full run reads every row in place instead and
-- replaces every row; a rebuild reads none, as it computes every address's facts again.
CREATE OR REPLACE TEMP TABLE stored_chain_rows AS
SELECT "chain", address,  -- the facts first, in new_facts' order (sql/score/facts.sql)
       candidate_as_payer, candidate_as_payee, verified_as_payer, verified_as_payee,
       counterparties_count, verified_counterparties_count, active_days, active_months, volume_usdc,
       verified_volume_usdc, first_candidate_tx_at, last_candidate_tx_at, first_verified_tx_at, last_verified_tx_at,
       rowid AS row_id, NOT getvariable('is_full') AND address IN (SELECT address FROM scope_addresses) AS replaced
  FROM chain_scores
 WHERE NOT getvariable('rebuild_payments')
   AND address IN (SELECT address FROM paid_addresses UNION SELECT address FROM fact_addresses);

CREATE OR REPLACE TEMP TABLE new_facts AS
WITH touching AS MATERIALIZED (  -- the pairs either side of which changed (read by sql/score/pairs.sql),
                                 -- with which side that is, found once for the readers below
  SELECT * FROM (SELECT *, payer IN (SELECT address FROM paid_addresses) AS payer_paid,
                           payee IN (SELECT address FROM paid_addresses) AS payee_paid
                   FROM current_pairs())
   WHERE payer_paid OR payee_paid
),
sides AS (            -- each pair from the payer's side and from the payee's
  SELECT chain, payer AS address, payee AS counterparty,
         payments AS candidate_as_payer, 0 AS candidate_as_payee,
         verified_payments AS verified_as_payer, 0 AS verified_as_payee,
         volume, verified_volume, first_at, last_at, first_verified_at, last_verified_at
    FROM touching
   WHERE payer_paid
  UNION ALL
  SELECT chain, payee, payer, 0, payments, 0, verified_payments,
         volume, verified_volume, first_at, last_at, first_verified_at, last_verified_at
    FROM touching
   WHERE payee_paid
),
per_address AS (
  SELECT chain, address,
         sum(candidate_as_payer) AS candidate_as_payer, sum(candidate_as_payee) AS candidate_as_payee,
         sum(verified_as_payer) AS verified_as_payer, sum(verified_as_payee) AS verified_as_payee,
         count(*) AS sides, count(*) FILTER (verified_as_payer + verified_as_payee > 0) AS verified_sides,
         sum(volume) AS volume, sum(verified_volume) AS verified_volume,
         min(first_at) AS first_at, max(last_at) AS last_at,
         min(first_verified_at) AS first_verified_at, max(last_verified_at) AS last_verified_at
    FROM sides GROUP BY chain, address
),
mutual AS (           -- a counterparty that both paid the address and was paid by it has a side
                      -- each way but counts once (rare: found by a join, not by regrouping every side)
  SELECT p.chain, p.payer AS address, count(*) AS pairs,
         count(*) FILTER (p.verified_payments > 0 AND q.verified_payments > 0) AS verified_pairs
    FROM (SELECT * FROM touching WHERE payer_paid) p
    JOIN (SELECT * FROM touching WHERE payee_paid) q
      ON q.chain = p.chain AND q.payer = p.payee AND q.payee = p.payer
   GROUP BY p.chain, p.payer
),
days AS (             -- a month row per month with payments, a bit per day: the stored counts,
                      -- plus the months this run changed as they are now, less as they were
                      -- (sql/score/pairs.sql), rather than every month row of the address again
  SELECT chain, address, sum(days)::INTEGER AS active_days, sum(months)::INTEGER AS active_months
    FROM (SELECT chain, address, active_days AS days, active_months AS months FROM stored_chain_rows
           WHERE address IN (SELECT address FROM paid_addresses)
          UNION ALL SELECT chain, address, bit_count(days), 1 FROM changed_months
          UNION ALL SELECT chain, address, -bit_count(days), -1 FROM replaced_months)
   GROUP BY chain, address
)
SELECT a.chain, a.address,
       a.candidate_as_payer::INTEGER                                     AS candidate_as_payer,
       a.candidate_as_payee::INTEGER                                     AS candidate_as_payee,
       a.verified_as_payer::INTEGER                                      AS verified_as_payer,
       a.verified_as_payee::INTEGER                                      AS verified_as_payee,
       (a.sides - coalesce(m.pairs, 0))::INTEGER                         AS counterparties_count,
       (a.verified_sides - coalesce(m.verified_pairs, 0))::INTEGER       AS verified_counterparties_count,
       d.active_days,
       d.active_months,
       coalesce(a.volume::DOUBLE / 1e6, 0)                               AS volume_usdc,
       coalesce(a.verified_volume::DOUBLE / 1e6, 0)                      AS verified_volume_usdc,
       a.first_at                                                        AS first_candidate_tx_at,
       a.last_at                                                         AS last_candidate_tx_at,
       a.first_verified_at                                               AS first_verified_tx_at,
       a.last_verified_at                                                AS last_verified_tx_at
  FROM per_address a
  JOIN days d ON d.chain = a.chain AND d.address = a.address
  LEFT JOIN mutual m ON m.chain = a.chain AND m.address = a.address;
