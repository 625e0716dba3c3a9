-- Keeps payment_pairs (migration 013) and payment_months (017) equal to aggregates of
-- scored_payments, from what this run changed there (gone_payments() and new_payments(),
-- sql/score/payments.sql). A pair or month that lost payments is recounted from scored_payments:
-- rare (an imported row replaced), and the table is not read when there is none. Any other pair
-- adds the new payments' counts and sums to its stored ones and widens its first and last times;
-- any other month adds the new payments' days to its bits.
CREATE OR REPLACE TEMP TABLE recount_pairs AS SELECT DISTINCT chain, payer, payee FROM gone_payments();
CREATE OR REPLACE TEMP TABLE recount_months AS
SELECT DISTINCT chain, unnest([payer, payee]) AS address, date_trunc('month', block_time)::DATE AS month FROM gone_payments();

-- The stored pairs this run reads, in one scan before it changes any: those either side of which
-- was paid or paid by this run (their totals change, and so do their addresses' facts:
-- sql/score/payment_facts.sql), and those paid by a client whose weight this run computes again
-- (sql/score/weights.sql; none in a full run, which reads every pair there).
CREATE OR REPLACE TEMP TABLE stored_pairs AS
SELECT * FROM payment_pairs
 WHERE payer IN (SELECT address FROM paid_addresses UNION SELECT client_address FROM weight_clients)
    OR payee IN (SELECT address FROM paid_addresses);

-- The new totals of every pair that changed: a recounted pair's from its payments, any other's
-- its stored totals (none for a pair first paid now) plus those of its new payments.
CREATE OR REPLACE TEMP TABLE changed_pairs AS
WITH pair_payments AS (  -- what the new totals are made of
  SELECT n.* FROM new_payments() n
    ANTI JOIN recount_pairs r ON r.chain = n.chain AND r.payer = n.payer AND r.payee = n.payee
  UNION ALL
  SELECT s.* FROM scored_payments s
    SEMI JOIN recount_pairs r ON r.chain = s.chain AND r.payer = s.payer AND r.payee = s.payee
),
fresh AS MATERIALIZED (  -- totals of those payments per pair
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
kept AS (                -- stored totals of the pairs that only gained payments
  SELECT p.* FROM stored_pairs p
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

-- The stored rows replaced (read above: a changed pair's stored row is in stored_pairs), and
-- those recounted: none when every changed pair is new, and DuckDB then stops the scan.
DELETE FROM payment_pairs p
 USING (SELECT chain, payer, payee FROM stored_pairs SEMI JOIN changed_pairs USING (chain, payer, payee)
        UNION SELECT chain, payer, payee FROM recount_pairs) c
 WHERE c.chain = p.chain AND c.payer = p.payer AND c.payee = p.payee;

INSERT INTO payment_pairs SELECT * FROM changed_pairs;

-- The pairs read, as they are now: those replaced or recounted give way to the new totals. A
-- macro: its two readers filter it, and a temporary table of every row cost more than both.
CREATE OR REPLACE TEMP MACRO current_pairs() AS TABLE
  SELECT s.* FROM stored_pairs s
    ANTI JOIN (SELECT chain, payer, payee FROM changed_pairs UNION ALL SELECT chain, payer, payee FROM recount_pairs) r
      ON r.chain = s.chain AND r.payer = s.payer AND r.payee = s.payee
  UNION ALL
  SELECT * FROM changed_pairs;

CREATE OR REPLACE TEMP TABLE fresh_months AS  -- the days of the payment sides the changed months are made of
WITH dated AS (
  SELECT chain, unnest([payer, payee]) AS address, block_time FROM new_payments()
  UNION ALL
  SELECT s.chain, s.payer, s.block_time FROM scored_payments s
    SEMI JOIN recount_months r ON r.chain = s.chain AND r.address = s.payer AND r.month = date_trunc('month', s.block_time)::DATE
  UNION ALL
  SELECT s.chain, s.payee, s.block_time FROM scored_payments s
    SEMI JOIN recount_months r ON r.chain = s.chain AND r.address = s.payee AND r.month = date_trunc('month', s.block_time)::DATE
)
SELECT chain, address, date_trunc('month', block_time)::DATE AS month,
       bit_or(1 << (day(block_time) - 1))::INTEGER AS days
  FROM dated GROUP BY ALL;

-- The stored months this run replaces, in one scan: those that gained payments and those
-- recounted (sql/score/payment_facts.sql subtracts their days from the stored counts).
CREATE OR REPLACE TEMP TABLE replaced_months AS
SELECT m.* FROM payment_months m
  SEMI JOIN (SELECT chain, address, month FROM fresh_months UNION SELECT chain, address, month FROM recount_months) c
    ON c.chain = m.chain AND c.address = m.address AND c.month = m.month;

-- A recounted month's bits are those of its payments (fresh_months); any other's its stored bits
-- and its new payments' days.
CREATE OR REPLACE TEMP TABLE changed_months AS
SELECT chain, address, month, bit_or(days)::INTEGER AS days
  FROM (SELECT * FROM fresh_months
        UNION ALL
        SELECT * FROM replaced_months r
         ANTI JOIN recount_months c ON c.chain = r.chain AND c.address = r.address AND c.month = r.month)
 GROUP BY chain, address, month;

DELETE FROM payment_months m USING replaced_months r
 WHERE r.chain = m.chain AND r.address = m.address AND r.month = m.month;

INSERT INTO payment_months SELECT * FROM changed_months;
