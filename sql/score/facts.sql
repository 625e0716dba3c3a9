-- Activity facts per (chain, address) from the run's payments, each payment counted on both
-- sides: as payer and as payee (spec 2.7 `activity`).
CREATE OR REPLACE TEMP TABLE run_sides AS
SELECT chain, payer AS address, payee AS counterparty, TRUE AS as_payer, value, block_time, verified FROM run_payments
UNION ALL
SELECT chain, payee, payer, FALSE, value, block_time, verified FROM run_payments;

-- Distinct counts go through two small pre-aggregates (per counterparty, per day) instead of
-- count(DISTINCT …) over every payment, which is several times slower with a million addresses.
CREATE OR REPLACE TEMP TABLE run_facts AS
WITH sides AS (
  SELECT * FROM run_sides
   WHERE (SELECT is_full FROM run_params) OR address IN (SELECT address FROM fact_addresses)
),
per_counterparty AS (
  SELECT chain, address, counterparty,
         count(*) FILTER (as_payer)                  AS candidate_as_payer,
         count(*) FILTER (NOT as_payer)              AS candidate_as_payee,
         count(*) FILTER (as_payer AND verified)     AS verified_as_payer,
         count(*) FILTER (NOT as_payer AND verified) AS verified_as_payee,
         sum(value)                                  AS volume,
         sum(value) FILTER (verified)                AS verified_volume,
         min(block_time)                             AS first_at,
         max(block_time)                             AS last_at,
         min(block_time) FILTER (verified)           AS first_verified_at,
         max(block_time) FILTER (verified)           AS last_verified_at
    FROM sides GROUP BY chain, address, counterparty
),
per_day AS (
  SELECT DISTINCT chain, address, block_time::DATE AS day FROM sides
),
days AS (
  SELECT chain, address, count(*)::INTEGER AS active_days,
         count(DISTINCT date_trunc('month', day))::INTEGER AS active_months
    FROM per_day GROUP BY chain, address
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
