-- Permit2-proxy settlements, and x402_payments: every x402 payment from every source, one row per
-- payment, for scoring and for analysts.
--
-- candidate: a token Transfer authorised with EIP-3009: the AuthorizationUsed by the Transfer's
--            sender immediately before it (log_index - 1; EIP-3009 and USDC's FiatToken emit the
--            pair in that order, so a facilitator batching several payments in one transaction
--            still gives one row each, and other Transfers in it do not count); or a token Transfer
--            in a transaction where x402's Permit2 proxy emitted Settled()/SettledWithPermit()
--            (tokens without EIP-3009); or an imported transfer marked `authorized` (Solana: an
--            x402 SPL TransferChecked)
-- verified:  a candidate whose transaction was submitted by a known facilitator (EVM sender,
--            Solana fee payer); facilitator addresses are unique across networks
-- A transfer both ingested from a chain and imported from a file counts once (the chain's row).

-- Settlements through the Permit2 proxy (x402ExactPermit2Proxy / x402UptoPermit2Proxy): the proxy
-- emits Settled() or SettledWithPermit() in the transaction in which Permit2 moves the payer's
-- tokens to the payee.
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

CREATE VIEW x402_payments AS
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
