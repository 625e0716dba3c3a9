-- Keeps payment_facts (migration 021) equal to the activity facts of the payments: per (chain,
-- address), each payment counted on both sides, as payer and as payee (spec 2.7 `activity`).
-- The facts of every address either side of a payment this run added or removed (paid_addresses,
-- sql/score/payments.sql; every address in a rebuild) are computed again from its pairs and
-- months, not from the payments: distinct counts come from them (a pair is a counterparty, a
-- month row an active month, a bit in it an active day) instead of count(DISTINCT …) over every
-- payment. Other addresses keep theirs, so a full run that rebuilds nothing reads the facts
-- instead of aggregating every pair again.

-- The stored facts this run reads, in one scan before it changes any: those of the paid addresses
-- (their active days and months are brought up to date from them) and those of the addresses and
-- clients in its scope (fact_addresses, sql/score/scope.sql; sql/score/facts.sql), with their row
-- ids (the paid addresses' rows are deleted by them below). A full run reads every address's in
-- place instead.
CREATE OR REPLACE TEMP TABLE stored_facts AS
SELECT rowid AS row_id, * FROM payment_facts
 WHERE address IN (SELECT address FROM paid_addresses UNION SELECT address FROM fact_addresses);

CREATE OR REPLACE TEMP TABLE new_facts AS
WITH touching AS MATERIALIZED (  -- the pairs either side of which changed (read by sql/score/pairs.sql)
  SELECT * FROM current_pairs()
   WHERE payer IN (SELECT address FROM paid_addresses) OR payee IN (SELECT address FROM paid_addresses)
),
sides AS (            -- each pair from the payer's side and from the payee's
  SELECT chain, payer AS address, payee AS counterparty,
         payments AS candidate_as_payer, 0 AS candidate_as_payee,
         verified_payments AS verified_as_payer, 0 AS verified_as_payee,
         volume, verified_volume, first_at, last_at, first_verified_at, last_verified_at
    FROM touching
   WHERE payer IN (SELECT address FROM paid_addresses)
  UNION ALL
  SELECT chain, payee, payer, 0, payments, 0, verified_payments,
         volume, verified_volume, first_at, last_at, first_verified_at, last_verified_at
    FROM touching
   WHERE payee IN (SELECT address FROM paid_addresses)
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
    FROM (SELECT * FROM touching WHERE payer IN (SELECT address FROM paid_addresses)) p
    JOIN (SELECT * FROM touching WHERE payee IN (SELECT address FROM paid_addresses)) q
      ON q.chain = p.chain AND q.payer = p.payee AND q.payee = p.payer
   GROUP BY p.chain, p.payer
),
days AS (             -- a month row per month with payments, a bit per day: the stored counts,
                      -- plus the months this run changed as they are now, less as they were
                      -- (sql/score/pairs.sql), rather than every month row of the address again
  SELECT chain, address, sum(days)::INTEGER AS active_days, sum(months)::INTEGER AS active_months
    FROM (SELECT chain, address, active_days AS days, active_months AS months FROM stored_facts
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

-- A pair or month recounted to nothing leaves its address without facts: it loses its row. The
-- rows go by the row ids the read above found (comparing every address again cost 20 ms).
DELETE FROM payment_facts f USING stored_facts s
 WHERE f.rowid = s.row_id AND s.address IN (SELECT address FROM paid_addresses);
INSERT INTO payment_facts SELECT * FROM new_facts;
