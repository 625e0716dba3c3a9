-- The activity facts this run reads, as the table macro run_facts(): the new facts of the paid
-- addresses (sql/score/payment_facts.sql) and the facts kept in the other addresses' chain rows:
-- in a full run every row's, read in place (a copy of a million rows cost 0.2 s; the full run
-- deletes the old rows only once it wrote the new ones, sql/score/chain_scores.sql), otherwise
-- those of fact_addresses read by sql/score/payment_facts.sql. A chain row has facts when it has
-- candidate payments; the others are agents' and asked-about addresses without any. Its readers
-- join it on their own addresses; a macro, as a temporary table of those rows cost more than the
-- three readers' scans of them.
CREATE OR REPLACE TEMP MACRO run_facts() AS TABLE
  SELECT * FROM new_facts
  UNION ALL
  SELECT "chain", address,
         candidate_as_payer, candidate_as_payee, verified_as_payer, verified_as_payee,
         counterparties_count, verified_counterparties_count, active_days, active_months, volume_usdc,
         verified_volume_usdc, first_candidate_tx_at, last_candidate_tx_at, first_verified_tx_at, last_verified_tx_at
    FROM chain_scores
   WHERE getvariable('is_full') AND NOT getvariable('rebuild_payments')
     AND candidate_as_payer + candidate_as_payee > 0 AND address NOT IN (SELECT address FROM paid_addresses)
  UNION ALL
  SELECT * EXCLUDE (row_id, replaced) FROM stored_chain_rows
   WHERE NOT getvariable('is_full')
     AND candidate_as_payer + candidate_as_payee > 0 AND address NOT IN (SELECT address FROM paid_addresses);
