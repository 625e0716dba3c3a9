-- Activity facts per (chain, address) from the run's payments, each payment counted on both
-- sides: as payer and as payee (spec 2.7 `activity`).
--
-- The payments are first reduced to one row per (chain, payer, payee), which feedback weights
-- read too; the per-address facts come from those pairs, seen from each side. Distinct counts
-- go through small pre-aggregates (counterparties, days) instead of count(DISTINCT …) over
-- every payment, which is several times slower with a million addresses.
CREATE OR REPLACE TEMP TABLE run_pairs AS
SELECT chain, payer, payee,
       count(*)                          AS payments,
       count(*) FILTER (verified)        AS verified_payments,
       sum(value)                        AS volume,
       sum(value) FILTER (verified)      AS verified_volume,
       min(block_time)                   AS first_at,
       max(block_time)                   AS last_at,
       min(block_time) FILTER (verified) AS first_verified_at,
       max(block_time) FILTER (verified) AS last_verified_at
  FROM run_payments
 GROUP BY chain, payer, payee;

CREATE OR REPLACE TEMP TABLE run_facts AS
WITH sides AS (       -- each pair from the payer's side and from the payee's
  SELECT chain, payer AS address, payee AS counterparty,
         payments AS candidate_as_payer, 0 AS candidate_as_payee,
         verified_payments AS verified_as_payer, 0 AS verified_as_payee,
         volume, verified_volume, first_at, last_at, first_verified_at, last_verified_at
    FROM run_pairs
  UNION ALL
  SELECT chain, payee, payer, 0, payments, 0, verified_payments,
         volume, verified_volume, first_at, last_at, first_verified_at, last_verified_at
    FROM run_pairs
),
scoped_sides AS (
  SELECT * FROM sides
   WHERE (SELECT is_full FROM run_params) OR address IN (SELECT address FROM fact_addresses)
),
per_counterparty AS (  -- two addresses that paid each other are one counterparty
  SELECT chain, address, counterparty,
         sum(candidate_as_payer) AS candidate_as_payer, sum(candidate_as_payee) AS candidate_as_payee,
         sum(verified_as_payer) AS verified_as_payer, sum(verified_as_payee) AS verified_as_payee,
         sum(volume) AS volume, sum(verified_volume) AS verified_volume,
         min(first_at) AS first_at, max(last_at) AS last_at,
         min(first_verified_at) AS first_verified_at, max(last_verified_at) AS last_verified_at
    FROM scoped_sides GROUP BY chain, address, counterparty
),
per_day AS (
  SELECT DISTINCT chain, unnest([payer, payee]) AS address, block_time::DATE AS day FROM run_payments
),
days AS (
  SELECT chain, address, count(*)::INTEGER AS active_days,
         count(DISTINCT date_trunc('month', day))::INTEGER AS active_months
    FROM per_day
   WHERE (SELECT is_full FROM run_params) OR address IN (SELECT address FROM fact_addresses)
   GROUP BY chain, address
)
SELECT c.chain, c.address,
       sum(candidate_as_payer)::INTEGER                                  AS candidate_as_payer,
       sum(candidate_as_payee)::INTEGER                                  AS candidate_as_payee,
       sum(verified_as_payer)::INTEGER                                   AS verified_as_payer,
       sum(verified_as_payee)::INTEGER                                   AS verified_as_payee,
       count(*)::INTEGER                                                 AS counterparties_count,
       count(*) FILTER (verified_as_payer + verified_as_payee > 0)::INTEGER AS verified_counterparties_count,
       any_value(d.active_days)                                          AS active_days,
       any_value(d.active_months)                                        AS active_months,
       coalesce(sum(volume)::DOUBLE / 1e6, 0)                            AS volume_usdc,
       coalesce(sum(verified_volume)::DOUBLE / 1e6, 0)                   AS verified_volume_usdc,
       min(first_at)                                                     AS first_candidate_tx_at,
       max(last_at)                                                      AS last_candidate_tx_at,
       min(first_verified_at)                                            AS first_verified_tx_at,
       max(last_verified_at)                                             AS last_verified_tx_at
  FROM per_counterparty c
  JOIN days d ON d.chain = c.chain AND d.address = c.address
 GROUP BY c.chain, c.address;
