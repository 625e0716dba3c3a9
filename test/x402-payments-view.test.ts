// The x402_payments view over hand-made rows shaped like real logs: a facilitator batching two
// payments of one payer into one transaction gives two payments, not four; a plain Transfer from
// the authorizer in the same transaction is not a payment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timestampValue } from '@duckdb/node-api';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { refreshFacilitators } from '../pipeline/chain/facilitators.ts';
import { tempDataDir } from './helpers/temp.ts';

const token = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const payer = '0x1111111111111111111111111111111111111111';
const [shopA, shopB, friend] = ['0xaaaa', '0xbbbb', '0xcccc'].map((p) => p.padEnd(42, '0')) as [string, string, string];
const facilitator = '0x73b2b8df52fbe7c40fe78db52e3dffdd5db5ad07';
const tx = `0x${'ab'.repeat(32)}`;

describe('x402_payments', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('view') });
    await store.write(async (t) => {
      await refreshFacilitators(t);
      await t.append('chain_blocks', [['base', 100n, `0x${'01'.repeat(32)}`, timestampValue(1_750_000_000_000_000n), 'token']]);
      // One transaction: authorisation, transfer, authorisation, transfer, then a plain transfer.
      await t.append('authorizations_used', [
        ['base', 100n, tx, 0, token, payer, `0x${'00'.repeat(31)}01`],
        ['base', 100n, tx, 2, token, payer, `0x${'00'.repeat(31)}02`],
      ]);
      await t.append('token_transfers', [
        ['base', 100n, tx, 1, token, payer, shopA, 1_000_000n],
        ['base', 100n, tx, 3, token, payer, shopB, 2_000_000n],
        ['base', 100n, tx, 4, token, payer, friend, 5_000_000n],
      ]);
      await t.append('transaction_senders', [['base', 100n, tx, facilitator, 'token']]);
    });
  });
  afterAll(() => store?.close());

  it('holds the shipped facilitators as they compare: EVM signers lowercased (the list has checksummed ones), Solana keys verbatim, with their ids', async () => {
    const rows = await store.read(`SELECT network, address, facilitator_id FROM facilitators WHERE facilitator_id IN ('codenut', 'figment-facilitator') ORDER BY ALL`);
    expect(rows).toContainEqual({ network: 'base', address: '0x8d8fa42584a727488eeb0e29405ad794a105bb9b', facilitator_id: 'codenut' });
    expect(rows).toContainEqual({ network: 'solana', address: 'HsozMJWWHNADoZRmhDGKzua6XW6NNfNDdQ4CkE9i5wHt', facilitator_id: 'codenut' });
    expect(rows).toContainEqual({ network: 'solana', address: '93syNmtT1tTd5ZtPwHqzGf6CM7fKhMmArpv4AM4FtyNX', facilitator_id: 'figment-facilitator' });
  });

  it('pairs each Transfer with the authorisation just before it', async () => {
    const rows = await store.read(`SELECT payee, value::VARCHAR AS value, verified FROM x402_payments ORDER BY x402_payments.value`);
    expect(rows).toEqual([
      { payee: shopA, value: '1000000', verified: true },
      { payee: shopB, value: '2000000', verified: true },
    ]);
  });
});

// Transactions that test one rule each, every one in its own block.
describe('x402_payments pairing rules', () => {
  let store: Store;
  const proxy = '0x4020615294c913f045dc10f0a5cdebd86c280001';
  const txOf = (n: number) => `0x${n.toString(16).padStart(2, '0').repeat(32)}`;
  const nonce = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('view-rules') });
    await store.write(async (t) => {
      await refreshFacilitators(t);
      await t.append('chain_blocks', [200n, 201n].map((n) => ['base', n, `0x${n.toString(16).padStart(64, '0')}`, timestampValue(1_750_000_000_000_000n), 'token']));
      // Block 200: the payer authorises, but the Transfer right after it is someone else's.
      await t.append('authorizations_used', [['base', 200n, txOf(200), 0, token, payer, nonce(1)]]);
      await t.append('token_transfers', [['base', 200n, txOf(200), 1, token, friend, shopA, 7_000_000n]]);
      await t.append('transaction_senders', [['base', 200n, txOf(200), facilitator, 'token']]);
      // Block 201: an EIP-3009 payment settled through the Permit2 proxy: one payment, not two.
      await t.append('authorizations_used', [['base', 201n, txOf(201), 0, token, payer, nonce(2)]]);
      await t.append('token_transfers', [['base', 201n, txOf(201), 1, token, payer, shopB, 3_000_000n]]);
      await t.append('permit2_settlements', [['base', 201n, txOf(201), 2, proxy, 'Settled']]);
      await t.append('transaction_senders', [
        ['base', 201n, txOf(201), facilitator, 'token'],
        ['base', 201n, txOf(201), facilitator, 'permit2'],
      ]);
    });
  });
  afterAll(() => store?.close());

  it('does not pair an authorisation with a Transfer from another sender', async () => {
    expect(await store.read(`SELECT payee FROM x402_payments WHERE tx_hash = $1`, [txOf(200)])).toEqual([]);
  });

  it('counts a Permit2-settled EIP-3009 transfer once', async () => {
    const rows = await store.read(`SELECT payer, payee, value::VARCHAR AS value, verified FROM x402_payments WHERE tx_hash = $1`, [txOf(201)]);
    expect(rows).toEqual([{ payer, payee: shopB, value: '3000000', verified: true }]);
  });
});
