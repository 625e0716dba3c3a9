-- Any other run reads the payments touching an address whose facts it needs (fact_addresses),
-- each once: those it paid, then those it was paid by another address.
CREATE OR REPLACE TEMP TABLE run_payments AS
SELECT chain, payer, payee, value, block_time, verified FROM scored_payments
  SEMI JOIN fact_addresses f ON f.address = payer
UNION ALL
SELECT chain, payer, payee, value, block_time, verified FROM scored_payments
  SEMI JOIN fact_addresses f ON f.address = payee
  ANTI JOIN fact_addresses g ON g.address = payer;
