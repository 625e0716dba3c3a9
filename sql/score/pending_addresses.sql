-- On-demand runs: both sides of the payments this run added or removed (sql/score/payments.sql),
-- for the next incremental run to rescore (migration 027, sql/score/changed.sql).
INSERT INTO pending_addresses
SELECT unnest([payer, payee]) FROM gone_payments
UNION SELECT unnest([payer, payee]) FROM new_payments;
