// The stats an on-demand run writes describe what it serves: it brings every payment up to date
// but rescores only the addresses it was asked about (the others wait in pending_addresses), so a
// chain first paid since the previous run is neither counted nor named until the next run.
import { afterAll, expect, it } from 'vitest';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { tempDataDir } from './helpers/temp.ts';

const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');
const facilitator = '0x73b2b8df52fbe7c40fe78db52e3dffdd5db5ad07'; // a Base facilitator (pipeline/chain/facilitators.csv)
let store: Store;
afterAll(async () => store?.close());

// One verified EIP-3009 payment in its own block, and the chain's token cursor at that block.
const pay = (chain: string, block: number, payer: string, payee: string) => `
  INSERT INTO token_transfers VALUES ('${chain}', ${block}, '0xt${chain}${block}', 1, '0xtoken', '${payer}', '${payee}', 1000000);
  INSERT INTO authorizations_used VALUES ('${chain}', ${block}, '0xt${chain}${block}', 0, '0xtoken', '${payer}', '0xn${chain}${block}');
  INSERT INTO transaction_senders VALUES ('${chain}', ${block}, '0xt${chain}${block}', '${facilitator}', 'token');
  INSERT INTO chain_blocks VALUES ('${chain}', ${block}, 'h${block}', TIMESTAMP '2026-01-01' + INTERVAL ${block} HOUR, 'token');
  INSERT INTO ingest_cursors VALUES ('${chain}', 'token', ${block}, 'h${block}', utc_now());`;

const x402Body = async () =>
  JSON.parse(String((await store.read(`SELECT body::VARCHAR AS body FROM run_stats WHERE name = 'x402' ORDER BY run_id DESC LIMIT 1`))[0]!.body));

it('an on-demand run names in data_source only the chains whose payments its stats count', async () => {
  store = await openStore({ dataDir: tempDataDir('stats-on-demand') });
  await store.write((tx) => tx.run(pay('base', 10, addr(1), addr(2))));
  expect((await runScoring(store)).kind).toBe('full');
  await store.write((tx) => tx.run(pay('devnet', 20, addr(3), addr(4))));
  expect((await runScoring(store, { addresses: [addr(1)] })).kind).toBe('addresses');
  let body = await x402Body();
  expect(body.total_transactions).toBe(1);
  expect(body.data_source).toBe('x402 candidate payments (EIP-3009 and Permit2) on base');
  // The next incremental run rescores the devnet addresses and names their chain.
  expect((await runScoring(store)).kind).toBe('incremental');
  body = await x402Body();
  expect(body.total_transactions).toBe(2);
  expect(body.data_source).toBe('x402 candidate payments (EIP-3009 and Permit2) on base, devnet');
});
