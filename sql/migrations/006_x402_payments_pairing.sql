-- x402_payments, pairing each Transfer with its own authorisation: EIP-3009's
-- transferWithAuthorization emits AuthorizationUsed immediately before its Transfer (USDC's
-- FiatToken does so too), so the pair is (log_index - 1, log_index). Joining on the transaction
-- alone multiplied rows when a facilitator batched several payments of one payer into one
-- transaction, and counted any other Transfer from the authorizer in it as a payment.
CREATE OR REPLACE VIEW x402_payments AS
SELECT t.chain, t.tx_hash, t.log_index, t.token, t.from_address AS payer, t.to_address AS payee, t.value,
       b.block_time,
       s.from_address AS submitter,
       s.from_address IN (SELECT address FROM facilitators) AS verified,
       'chain' AS origin
  FROM token_transfers t
  JOIN chain_blocks b ON b.chain = t.chain AND b.source = 'token' AND b.block_number = t.block_number
  LEFT JOIN transaction_senders s ON s.chain = t.chain AND s.tx_hash = t.tx_hash AND s.source = 'token'
 WHERE EXISTS (SELECT 1 FROM authorizations_used a
                WHERE a.chain = t.chain AND a.tx_hash = t.tx_hash AND a.token = t.token
                  AND a.authorizer = t.from_address AND a.log_index = t.log_index - 1)
UNION ALL
SELECT t.chain, t.tx_hash, t.log_index, t.token, t.from_address, t.to_address, t.value,
       b.block_time,
       s.from_address,
       s.from_address IN (SELECT address FROM facilitators),
       'chain'
  FROM token_transfers t
  JOIN (SELECT DISTINCT chain, tx_hash FROM permit2_settlements) p ON p.chain = t.chain AND p.tx_hash = t.tx_hash
  JOIN chain_blocks b ON b.chain = t.chain AND b.source = 'token' AND b.block_number = t.block_number
  LEFT JOIN transaction_senders s ON s.chain = t.chain AND s.tx_hash = t.tx_hash AND s.source = 'permit2'
 WHERE NOT EXISTS (SELECT 1 FROM authorizations_used a
                    WHERE a.chain = t.chain AND a.tx_hash = t.tx_hash AND a.token = t.token
                      AND a.authorizer = t.from_address AND a.log_index = t.log_index - 1)
UNION ALL
SELECT i.chain, i.tx_hash, i.log_index, i.token, i.from_address, i.to_address, i.value,
       i.block_time,
       i.tx_sender,
       i.tx_sender IN (SELECT address FROM facilitators),
       'import'
  FROM imported_transfers i
 WHERE i.authorized
   AND NOT EXISTS (SELECT 1 FROM token_transfers t WHERE t.chain = i.chain AND t.tx_hash = i.tx_hash AND t.log_index = i.log_index);
