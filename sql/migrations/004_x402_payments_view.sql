-- x402 payments from every source, one row per payment, for scoring and for analysts.
--
-- candidate: a token Transfer authorised with EIP-3009 in the same transaction (AuthorizationUsed
--            by the sender of the Transfer), or an imported transfer marked `authorized`
--            (Solana: an x402 SPL TransferChecked)
-- verified:  a candidate whose transaction was submitted by a known facilitator (EVM sender,
--            Solana fee payer); facilitator addresses are unique across networks
-- A transfer both ingested from a chain and imported from a file counts once (the chain's row).
CREATE VIEW x402_payments AS
SELECT t.chain, t.tx_hash, t.log_index, t.token, t.from_address AS payer, t.to_address AS payee, t.value,
       b.block_time,
       s.from_address AS submitter,
       s.from_address IN (SELECT address FROM facilitators) AS verified,
       'chain' AS origin
  FROM token_transfers t
  JOIN authorizations_used a
    ON a.chain = t.chain AND a.tx_hash = t.tx_hash AND a.token = t.token AND a.authorizer = t.from_address
  JOIN chain_blocks b ON b.chain = t.chain AND b.source = 'token' AND b.block_number = t.block_number
  LEFT JOIN transaction_senders s ON s.chain = t.chain AND s.tx_hash = t.tx_hash
UNION ALL
SELECT i.chain, i.tx_hash, i.log_index, i.token, i.from_address, i.to_address, i.value,
       i.block_time,
       i.tx_sender,
       i.tx_sender IN (SELECT address FROM facilitators),
       'import'
  FROM imported_transfers i
 WHERE i.authorized
   AND NOT EXISTS (SELECT 1 FROM token_transfers t WHERE t.chain = i.chain AND t.tx_hash = i.tx_hash AND t.log_index = i.log_index);
