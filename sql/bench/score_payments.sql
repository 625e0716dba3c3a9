-- Synthetic data for `npm run bench -- score`, step 2 (and of every increment): writes the
-- payments in bench_new_payments (made by score_data.sql or score_increment.sql) into the raw
-- tables as the token source's ingestion does (pipeline/ingest/sources.ts): each an EIP-3009 x402
-- payment, i.e. a USDC Transfer with the payer's AuthorizationUsed right before it (log_index - 1)
-- in its own transaction, the transaction's sender, every block that carries a log plus the
-- range's last block, and the token cursor at bench_head. ~70% of the senders are the chain's
-- known facilitators (weighted: the first few send most), so those payments are verified; the
-- rest come from 200 other relayers. Needs the facilitators table filled (refreshFacilitators)
-- and bench_token, bench_head set. Every insert is a plain scan and projection, so DuckDB writes
-- it in parallel, in order.

SET VARIABLE bench_facilitators = (SELECT list(address ORDER BY address) FROM facilitators WHERE network = 'base');
SET VARIABLE bench_first_block = (SELECT min(block_number) FROM bench_new_payments);

INSERT INTO token_transfers
SELECT 'base', block_number, bench_bytes32('tx', seed), log_index, getvariable('bench_token'),
       bench_address(payer_id), bench_address(payee_id), value
  FROM bench_new_payments;

INSERT INTO authorizations_used
SELECT chain, block_number, tx_hash, log_index - 1, token, from_address,
       '0x' || substr(tx_hash, 35) || substr(tx_hash, 3, 32)  -- a nonce as random as the hash
  FROM token_transfers
 WHERE chain = 'base' AND block_number >= getvariable('bench_first_block');

INSERT INTO transaction_senders
SELECT chain, block_number, tx_hash,
       CASE WHEN bench_uniform(tx_hash, 'verified') < 0.7
            THEN getvariable('bench_facilitators')[1 + floor(len(getvariable('bench_facilitators')) * pow(bench_uniform(tx_hash, 'facilitator'), 2))::INTEGER]
            ELSE bench_relayer(hash(tx_hash, 'relayer') % 200) END,
       'token'
  FROM token_transfers
 WHERE chain = 'base' AND block_number >= getvariable('bench_first_block');

INSERT INTO chain_blocks (chain, block_number, block_hash, block_time, source)
SELECT 'base', block_number, bench_block_hash(block_number), bench_block_time(block_number), 'token'
  FROM bench_new_payments WHERE first_in_block;
INSERT INTO chain_blocks (chain, block_number, block_hash, block_time, source)
SELECT 'base', getvariable('bench_head'), bench_block_hash(getvariable('bench_head')), bench_block_time(getvariable('bench_head')), 'token'
 WHERE NOT EXISTS (SELECT 1 FROM chain_blocks WHERE chain = 'base' AND source = 'token' AND block_number = getvariable('bench_head'));

INSERT INTO ingest_cursors VALUES ('base', 'token', getvariable('bench_head'), bench_block_hash(getvariable('bench_head')), utc_now());
