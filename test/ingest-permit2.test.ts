// x402 payments settled through the Permit2 proxy (tokens without EIP-3009): the proxy's
// Settled() or SettledWithPermit() in the same transaction makes the token Transfer a candidate payment, and the
// submitter decides whether it is verified. A transferFrom by any other spender is not a payment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnits, type PrivateKeyAccount as Account } from 'viem';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { devnetClients } from '../devnet/clients.ts';
import { settleThroughPermit2Proxy } from '../devnet/permit2.ts';
import { loadArtifact } from '../devnet/artifacts.ts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { ingestChain } from '../pipeline/ingest/ingest-chain.ts';
import { refreshFacilitators } from '../pipeline/chain/facilitators.ts';
import { tempDataDir } from './helpers/temp.ts';

describe('Permit2 proxy settlements', () => {
  let devnet: Devnet;
  let store: Store;
  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    store = await openStore({ dataDir: tempDataDir('permit2') });
    await store.write((tx) => refreshFacilitators(tx));
  });
  afterAll(async () => {
    await store?.close();
    await devnet?.close();
  });

  it('are ingested as x402 payments, verified when a known facilitator submitted them', async () => {
    const { publicClient, walletClient } = devnetClients(devnet);
    const [payer, otherPayer, merchant, outsider, spender] = [1, 2, 7, 10, 11].map((i) => devnet.accounts[i]!) as [Account, Account, Account, Account, Account];
    const settle = (p: typeof payer, value: string, submitter: `0x${string}`, withPermit = false) =>
      settleThroughPermit2Proxy({ publicClient, walletClient, token: devnet.token.address, proxy: devnet.permit2Proxy.address, payer: p, to: merchant.address, value: parseUnits(value, 6), submitter, withPermit });
    const verified1 = await settle(payer, '1.5', devnet.facilitators[0]!);
    // The proxy's other entry point: a settlement that carried an EIP-2612 permit.
    const verified2 = await settle(otherPayer, '2', devnet.facilitators[1]!, true);
    const candidate = await settle(payer, '0.25', outsider.address);
    // Not through the proxy: an approval and a transferFrom by some other spender.
    const { abi } = loadArtifact('Eip3009Token');
    await publicClient.waitForTransactionReceipt({ hash: await walletClient.writeContract({ chain: null, account: otherPayer, address: devnet.token.address, abi, functionName: 'approve', args: [spender.address, 10n] }) });
    await publicClient.waitForTransactionReceipt({ hash: await walletClient.writeContract({ chain: null, account: spender, address: devnet.token.address, abi, functionName: 'transferFrom', args: [otherPayer.address, merchant.address, 10n] }) });

    const chain = loadConfig({ RPC_URL_DEVNET: devnet.rpcUrl }).chains.devnet!;
    const results = await ingestChain({ store, chain, log: silentLogger });
    expect(results.find((r) => r.source === 'permit2')).toMatchObject({ logs: 3 });

    const payments = await store.read(`SELECT tx_hash, payer, payee, value::VARCHAR AS value, verified, submitter FROM x402_payments ORDER BY x402_payments.value`);
    expect(payments).toEqual([
      { tx_hash: candidate.txHash, payer: payer.address.toLowerCase(), payee: merchant.address.toLowerCase(), value: '250000', verified: false, submitter: outsider.address.toLowerCase() },
      { tx_hash: verified1.txHash, payer: payer.address.toLowerCase(), payee: merchant.address.toLowerCase(), value: '1500000', verified: true, submitter: devnet.facilitators[0]!.toLowerCase() },
      { tx_hash: verified2.txHash, payer: otherPayer.address.toLowerCase(), payee: merchant.address.toLowerCase(), value: '2000000', verified: true, submitter: devnet.facilitators[1]!.toLowerCase() },
    ]);
    const events = await store.read(`SELECT tx_hash, event FROM permit2_settlements ORDER BY event, tx_hash`);
    expect(events).toEqual(
      [
        ...[verified1, candidate].map((s) => ({ tx_hash: s.txHash, event: 'Settled' })).sort((a, b) => a.tx_hash.localeCompare(b.tx_hash)),
        { tx_hash: verified2.txHash, event: 'SettledWithPermit' },
      ],
    );
  });
});
