-- Keeps payment_pairs and payment_days (migration 013) equal to aggregates of scored_payments,
-- from what this run changed there (gone_payments and new_payments, sql/score/payments.sql).
-- A pair or day that lost payments is recounted from scored_payments: rare (a reorg above the
-- previous run's floor, a re-copied import), and the table is not read when there is none. Any
-- other pair adds the new payments' counts and sums to its stored ones and widens its first and
-- last times; new days are added.
CREATE OR REPLACE TEMP TABLE recount_pairs AS SELECT DISTINCT chain, payer, payee FROM gone_payments;
CREATE OR REPLACE TEMP TABLE recount_days AS
SELECT DISTINCT chain, unnest([payer, payee]) AS address, block_time::DATE AS day FROM gone_payments;

CREATE OR REPLACE TEMP TABLE pair_payments AS   -- what the changed pairs' new totals are made of
SELECT n.* FROM new_payments n
  ANTI JOIN recount_pairs r ON r.chain = n.chain AND r.payer = n.payer AND r.payee = n.payee
UNION ALL
SELECT s.* FROM scored_payments s
  SEMI JOIN recount_pairs r ON r.chain = s.chain AND r.payer = s.payer AND r.payee = s.payee;

CREATE OR REPLACE TEMP TABLE changed_pairs AS
WITH fresh AS (
  SELECT chain, payer, payee,
         count(*)                          AS payments,
         count(*) FILTER (verified)        AS verified_payments,
         sum(value)                        AS volume,
         sum(value) FILTER (verified)      AS verified_volume,
         min(block_time)                   AS first_at,
         max(block_time)                   AS last_at,
         min(block_time) FILTER (verified) AS first_verified_at,
         max(block_time) FILTER (verified) AS last_verified_at
    FROM pair_payments
   GROUP BY chain, payer, payee
),
kept AS (             -- stored totals of the pairs that only gained payments
  SELECT p.* FROM payment_pairs p
    SEMI JOIN fresh f ON f.chain = p.chain AND f.payer = p.payer AND f.payee = p.payee
    ANTI JOIN recount_pairs r ON r.chain = p.chain AND r.payer = p.payer AND r.payee = p.payee
)
SELECT chain, payer, payee,
       sum(payments)::BIGINT AS payments, sum(verified_payments)::BIGINT AS verified_payments,
       sum(volume) AS volume, sum(verified_volume) AS verified_volume,
       min(first_at) AS first_at, max(last_at) AS last_at,
       min(first_verified_at) AS first_verified_at, max(last_verified_at) AS last_verified_at
  FROM (SELECT * FROM fresh UNION ALL SELECT * FROM kept)
 GROUP BY chain, payer, payee;

DELETE FROM payment_pairs p
 USING (SELECT chain, payer, payee FROM changed_pairs UNION SELECT chain, payer, payee FROM recount_pairs) c
 WHERE c.chain = p.chain AND c.payer = p.payer AND c.payee = p.payee;

INSERT INTO payment_pairs SELECT * FROM changed_pairs;

DELETE FROM payment_days d USING recount_days r
 WHERE r.chain = d.chain AND r.address = d.address AND r.day = d.day;

INSERT INTO payment_days
WITH candidates AS (
  SELECT DISTINCT chain, unnest([payer, payee]) AS address, block_time::DATE AS day FROM new_payments
  UNION
  SELECT s.chain, s.payer, s.block_time::DATE FROM scored_payments s
    SEMI JOIN recount_days r ON r.chain = s.chain AND r.address = s.payer AND r.day = s.block_time::DATE
  UNION
  SELECT s.chain, s.payee, s.block_time::DATE FROM scored_payments s
    SEMI JOIN recount_days r ON r.chain = s.chain AND r.address = s.payee AND r.day = s.block_time::DATE
)
SELECT c.* FROM candidates c
  ANTI JOIN payment_days d ON d.chain = c.chain AND d.address = c.address AND d.day = c.day;
