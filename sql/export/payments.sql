-- The `payments` export: every x402 payment (the x402_payments view: chain and imported, one row per
-- payment). `value` stays in base units; amount_usdc is value / 10^6, as scoring reads it.
SELECT chain, tx_hash, log_index, token, payer, payee,
       value,
       value::DOUBLE / 1e6      AS amount_usdc,
       block_time,
       submitter,
       coalesce(verified, false) AS verified,
       origin
  FROM x402_payments
