-- Synthetic data for `npm run bench -- score`, step 1: the x402 payments of the full data set, as
-- numbers in a temp table that sql/bench/score_payments.sql writes into the raw tables (and
-- score_erc8004.sql samples feedback from). Variables set by bench/score-data.ts: bench_addresses,
-- bench_transfers, bench_agents (the sizes).
--
-- The chain is `base`; its newest ingested block (`bench_head`) is the last before 2026-11-01T00:00Z.
-- Payments span the 120 days before it, growing over time (density rises linearly: block =
-- start + span * sqrt(i / n)), at most a few per block, one per transaction.
--
-- Who pays whom (address ids, see bench_address):
--   payer  floor(N * u^3) over all N addresses: address 0 pays in ~1% of all payments, the tail
--          about 3 times each, ~99% of the addresses pay at least once;
--   payee  log-uniform (Zipf, exponent 1) over the first N/20 addresses, the services: the
--          biggest takes ~6% of all payments, the smallest still a few dozen. Low ids both pay
--          and are paid (agents paying agents).
--   value  log-uniform 0.001-10 USDC.

SET VARIABLE bench_head = (epoch(TIMESTAMP '2026-11-01 00:00:00')::BIGINT - 1686789347) // 2;
SET VARIABLE bench_span = 120 * 43200;  -- 120 days of 2 s blocks
SET VARIABLE bench_services = greatest(2, getvariable('bench_addresses') // 20);

CREATE OR REPLACE TEMP MACRO bench_block_of(i) AS
  getvariable('bench_head') - getvariable('bench_span') + 1
  + floor(getvariable('bench_span') * sqrt((i + 0.5) / getvariable('bench_transfers')))::BIGINT;

CREATE OR REPLACE TEMP TABLE bench_new_payments AS
WITH drawn AS (
  SELECT i AS seed,
         bench_block_of(i) AS block_number,
         i = 0 OR bench_block_of(i) <> bench_block_of(greatest(i - 1, 0)) AS first_in_block,
         -- A block holds a run of consecutive i (a handful), so i % 2000 is unique within it;
         -- the AuthorizationUsed sits at log_index - 1.
         (i % 2000)::INTEGER * 2 + 1 AS log_index,
         floor(getvariable('bench_addresses') * pow(bench_uniform(i, 'payer'), 3))::BIGINT AS payer_id,
         floor(pow(getvariable('bench_services') + 1, bench_uniform(i, 'payee')))::BIGINT - 1 AS payee_id,
         (1000 * floor(pow(10000, bench_uniform(i, 'value'))))::HUGEINT AS value
    FROM range(getvariable('bench_transfers')) t(i)
)
SELECT seed, block_number, first_in_block, log_index, payer_id,
       CASE WHEN payee_id = payer_id THEN (payee_id + 1) % getvariable('bench_services') ELSE payee_id END AS payee_id,
       value
  FROM drawn;
