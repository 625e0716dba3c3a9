-- x402 settlements through the Permit2 proxy (x402ExactPermit2Proxy / x402UptoPermit2Proxy), for
-- tokens without EIP-3009: the proxy emits Settled() or SettledWithPermit() in the transaction in
-- which Permit2 moves the payer's tokens to the payee.
CREATE TABLE permit2_settlements (
  chain        VARCHAR NOT NULL,
  block_number BIGINT  NOT NULL,
  tx_hash      VARCHAR NOT NULL,
  log_index    INTEGER NOT NULL,
  proxy        VARCHAR NOT NULL,   -- proxy contract address, lowercased
  event        VARCHAR NOT NULL    -- Settled | SettledWithPermit
);

-- Senders are now recorded by two sources (token authorisations, Permit2 settlements); each
-- replaces only its own rows.
ALTER TABLE transaction_senders ADD COLUMN source VARCHAR DEFAULT 'token';

-- x402_payments gains the Permit2 settlements: the token Transfers in a settlement transaction
-- (not already counted as EIP-3009 payments).
CREATE OR REPLACE VIEW x402_payments AS
SELECT t.chain, t.tx_hash, t.log_index, t.token, t.from_address AS payer, t.to_address AS payee, t.value,
       b.block_time,
       s.from_address AS submitter,
       s.from_address IN (SELECT address FROM facilitators) AS verified,
       'chain' AS origin
  FROM token_transfers t
  JOIN authorizations_used a
    ON a.chain = t.chain AND a.tx_hash = t.tx_hash AND a.token = t.token AND a.authorizer = t.from_address
  JOIN chain_blocks b ON b.chain = t.chain AND b.source = 'token' AND b.block_number = t.block_number
  LEFT JOIN transaction_senders s ON s.chain = t.chain AND s.tx_hash = t.tx_hash AND s.source = 'token'
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
                    WHERE a.chain = t.chain AND a.tx_hash = t.tx_hash AND a.token = t.token AND a.authorizer = t.from_address)
UNION ALL
SELECT i.chain, i.tx_hash, i.log_index, i.token, i.from_address, i.to_address, i.value,
       i.block_time,
       i.tx_sender,
       i.tx_sender IN (SELECT address FROM facilitators),
       'import'
  FROM imported_transfers i
 WHERE i.authorized
   AND NOT EXISTS (SELECT 1 FROM token_transfers t WHERE t.chain = i.chain AND t.tx_hash = i.tx_hash AND t.log_index = i.log_index);
