-- A full run reads every payment (a view: nothing is copied).
CREATE OR REPLACE TEMP VIEW run_payments AS
SELECT chain, payer, payee, value, block_time, verified FROM scored_payments;
