-- Activity facts per (chain, address) from the run's payments, each payment counted on both
-- sides: as payer and as payee (spec 2.7 `activity`).
CREATE OR REPLACE TEMP TABLE run_sides AS
SELECT chain, payer AS address, payee AS counterparty, TRUE AS as_payer, value, block_time, verified FROM run_payments
UNION ALL
SELECT chain, payee, payer, FALSE, value, block_time, verified FROM run_payments;

CREATE OR REPLACE TEMP TABLE run_facts AS
SELECT chain, address,
       count(*) FILTER (as_payer)::INTEGER                            AS candidate_as_payer,
       count(*) FILTER (NOT as_payer)::INTEGER                        AS candidate_as_payee,
       count(*) FILTER (as_payer AND verified)::INTEGER               AS verified_as_payer,
       count(*) FILTER (NOT as_payer AND verified)::INTEGER           AS verified_as_payee,
       count(DISTINCT counterparty)::INTEGER                          AS counterparties_count,
       count(DISTINCT counterparty) FILTER (verified)::INTEGER        AS verified_counterparties_count,
       count(DISTINCT block_time::DATE)::INTEGER                      AS active_days,
       count(DISTINCT date_trunc('month', block_time))::INTEGER       AS active_months,
       coalesce(sum(value)::DOUBLE / 1e6, 0)                          AS volume_usdc,
       coalesce(sum(value) FILTER (verified)::DOUBLE / 1e6, 0)        AS verified_volume_usdc,
       min(block_time)                                                AS first_candidate_tx_at,
       max(block_time)                                                AS last_candidate_tx_at,
       min(block_time) FILTER (verified)                              AS first_verified_tx_at,
       max(block_time) FILTER (verified)                              AS last_verified_tx_at
  FROM run_sides
 WHERE (SELECT is_full FROM run_params) OR address IN (SELECT address FROM fact_addresses)
 GROUP BY chain, address;
