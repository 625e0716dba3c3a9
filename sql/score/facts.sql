-- Activity facts per (chain, address), each payment counted on both sides: as payer and as
-- payee (spec 2.7 `activity`). From the pair and day aggregates (migration 013, kept by
-- sql/score/pairs.sql), not the payments: every address in a full run, those in fact_addresses
-- otherwise. Distinct counts come from those aggregates (a pair is a counterparty, a day row an
-- active day) instead of count(DISTINCT …) over every payment.
CREATE OR REPLACE TEMP TABLE run_facts AS
WITH sides AS (       -- each pair from the payer's side and from the payee's
  SELECT chain, payer AS address, payee AS counterparty,
         payments AS candidate_as_payer, 0 AS candidate_as_payee,
         verified_payments AS verified_as_payer, 0 AS verified_as_payee,
         volume, verified_volume, first_at, last_at, first_verified_at, last_verified_at
    FROM payment_pairs
   WHERE (SELECT is_full FROM run_params) OR payer IN (SELECT address FROM fact_addresses)
  UNION ALL
  SELECT chain, payee, payer, 0, payments, 0, verified_payments,
         volume, verified_volume, first_at, last_at, first_verified_at, last_verified_at
    FROM payment_pairs
   WHERE (SELECT is_full FROM run_params) OR payee IN (SELECT address FROM fact_addresses)
),
per_counterparty AS (  -- two addresses that paid each other are one counterparty
  SELECT chain, address, counterparty,
         sum(candidate_as_payer) AS candidate_as_payer, sum(candidate_as_payee) AS candidate_as_payee,
         sum(verified_as_payer) AS verified_as_payer, sum(verified_as_payee) AS verified_as_payee,
         sum(volume) AS volume, sum(verified_volume) AS verified_volume,
         min(first_at) AS first_at, max(last_at) AS last_at,
         min(first_verified_at) AS first_verified_at, max(last_verified_at) AS last_verified_at
    FROM sides GROUP BY chain, address, counterparty
),
days AS (
  SELECT chain, address, count(*)::INTEGER AS active_days,
         count(DISTINCT date_trunc('month', day))::INTEGER AS active_months
    FROM payment_days
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
