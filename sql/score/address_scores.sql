-- First scoring model (foundation): per (chain, address) activity facts from x402 payments
-- (the x402_payments view: candidate payments and their verified subset, from chains and imports)
-- and a 0-100 score with its grade. $1 is the run id. The five-dimension v1 model replaces it.
INSERT INTO address_scores
WITH payments AS (
  SELECT chain, payer, payee, value, block_time, verified FROM x402_payments
),
sides AS (
  SELECT chain, payer AS address, payee AS counterparty, 'payer' AS role, value, block_time, verified FROM payments
  UNION ALL
  SELECT chain, payee, payer, 'payee', value, block_time, verified FROM payments
),
facts AS (
  SELECT chain, address,
         count(*) FILTER (role = 'payer')                    AS candidate_as_payer,
         count(*) FILTER (role = 'payee')                    AS candidate_as_payee,
         count(*) FILTER (role = 'payer' AND verified)       AS verified_as_payer,
         count(*) FILTER (role = 'payee' AND verified)       AS verified_as_payee,
         count(DISTINCT counterparty)                        AS counterparties_count,
         count(DISTINCT block_time::DATE)                    AS active_days,
         count(DISTINCT date_trunc('month', block_time))     AS active_months,
         sum(value)::DOUBLE / 1e6                            AS volume_usdc,
         min(block_time)                                     AS first_candidate_tx_at,
         max(block_time)                                     AS last_candidate_tx_at,
         min(block_time) FILTER (verified)                   AS first_verified_tx_at,
         max(block_time) FILTER (verified)                   AS last_verified_tx_at
    FROM sides
   GROUP BY chain, address
),
scored AS (
  SELECT *,
         verified_as_payer + verified_as_payee                 AS verified_total,
         candidate_as_payer + candidate_as_payee               AS candidate_total,
         -- Each part saturates: 50 verified payments, 100 candidates, 20 counterparties, 30 days.
         round(100 * (
             0.40 * least(1, ln(1 + verified_as_payer + verified_as_payee) / ln(51))
           + 0.20 * least(1, ln(1 + candidate_as_payer + candidate_as_payee) / ln(101))
           + 0.25 * least(1, ln(1 + counterparties_count) / ln(21))
           + 0.15 * least(1, active_days / 30)
         ))::INTEGER                                           AS score
    FROM facts
)
SELECT $1, chain, address, score,
       CASE WHEN score >= 90 THEN 'A' WHEN score >= 75 THEN 'B' WHEN score >= 50 THEN 'C'
            WHEN score >= 25 THEN 'D' ELSE 'F' END              AS grade,
       -- Confidence grows with the number of payments seen, reaching 1 at 50.
       round(least(1, candidate_total / 50), 2)                AS confidence,
       CASE WHEN candidate_as_payer > 0 AND candidate_as_payee > 0 THEN 'hybrid'
            WHEN candidate_as_payee > 0 THEN 'service'
            ELSE 'wallet' END                                   AS entity_type,
       candidate_as_payer, candidate_as_payee, verified_as_payer, verified_as_payee,
       counterparties_count, active_days, active_months, volume_usdc,
       first_candidate_tx_at, last_candidate_tx_at, first_verified_tx_at, last_verified_tx_at
  FROM scored;
