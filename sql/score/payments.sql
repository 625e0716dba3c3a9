-- The x402 payments this run reads: all of them in a full run, else those touching an address
-- whose facts it needs (fact_addresses).
CREATE OR REPLACE TEMP TABLE run_payments AS
SELECT chain, payer, payee, value, block_time, verified FROM x402_payments
 WHERE (SELECT is_full FROM run_params)
    OR payer IN (SELECT address FROM fact_addresses)
    OR payee IN (SELECT address FROM fact_addresses);
