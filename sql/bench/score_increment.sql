-- Synthetic data for `npm run bench -- score`: one hour of new blocks above the token cursor, as the
-- next ingestion run would add them, with payments that touch bench_touched_addresses of the
-- existing addresses (1% in the bench's increments; each new payment has a payer and a payee not
-- touched by any other). sql/bench/score_payments.sql then writes them and moves the token cursor
-- to the new head. Variables: bench_addresses, bench_touched_addresses, bench_token. Each
-- application adds another hour and touches other addresses.

SET VARIABLE bench_previous_head = (SELECT max(block_number) FROM ingest_cursors WHERE chain = 'base' AND source = 'token');
SET VARIABLE bench_head = getvariable('bench_previous_head') + 1800;
SET VARIABLE bench_touched_pairs = greatest(1, getvariable('bench_touched_addresses') // 2);

CREATE OR REPLACE TEMP MACRO bench_block_of(k) AS
  getvariable('bench_previous_head') + 1 + k * 1800 // getvariable('bench_touched_pairs');

-- x -> (x * 7919 + head) % N is a bijection of [0, N) (7919 is prime and N is not a multiple of
-- it), so the 2 * pairs addresses touched are distinct.
CREATE OR REPLACE TEMP TABLE bench_new_payments AS
SELECT getvariable('bench_head') * 100000 + k AS seed,
       bench_block_of(k) AS block_number,
       k = 0 OR bench_block_of(k) <> bench_block_of(k - 1) AS first_in_block,
       (k % 2000)::INTEGER * 2 + 1 AS log_index,
       (2 * k * 7919 + getvariable('bench_head')) % getvariable('bench_addresses') AS payer_id,
       ((2 * k + 1) * 7919 + getvariable('bench_head')) % getvariable('bench_addresses') AS payee_id,
       (1000 * floor(pow(10000, bench_uniform(getvariable('bench_head') * 100000 + k, 'value'))))::HUGEINT AS value
  FROM range(getvariable('bench_touched_pairs')) t(k);
