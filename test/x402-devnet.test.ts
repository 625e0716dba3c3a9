// x402 on the devnet with the registry's packages, and nothing of ours in the protocol: an Express
// route behind @x402/express's paymentMiddleware (x402ResourceServer, @x402/evm's exact server
// scheme), our local facilitator (@x402/core's x402Facilitator with @x402/evm's exact facilitator
// scheme, on 127.0.0.1, settling from an unlocked Base facilitator signer), and a payer using
// @x402/fetch with a viem local account. What the devnet needs from them is only configuration:
// the CAIP-2 network eip155:1337, the token as an explicit asset with its EIP-712 domain, and the
// token opted in to the payer's spend controls.
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { decodePaymentRequiredHeader, decodePaymentSignatureHeader } from '@x402/core/http';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { ExactEvmScheme as ExactEvmClientScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { decodeEventLog, getAddress, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { devnetClients } from '../devnet/clients.ts';
import { loadArtifact } from '../devnet/artifacts.ts';
import { knownFacilitators } from '../devnet/facilitators.ts';
import { startLocalFacilitator, type LocalFacilitator } from '../devnet/x402-facilitator.ts';
import { devnetPayingFetch, devnetUsdcPrice, devnetX402Network } from '../devnet/x402-client.ts';

const { abi } = loadArtifact('Eip3009Token');
const PRICE = 10_000n; // 0.01 USDC

describe('x402 on the devnet with @x402/express, @x402/fetch, @x402/evm and @x402/core', () => {
  let devnet: Devnet;
  let facilitator: LocalFacilitator;
  let server: Server;
  let origin: string;
  const payTo = privateKeyToAccount(generatePrivateKey()).address;
  const balanceOf = (address: Address) => devnetClients(devnet).publicClient.readContract({ address: devnet.token.address, abi, functionName: 'balanceOf', args: [address] }) as Promise<bigint>;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    facilitator = await startLocalFacilitator({ rpcUrl: devnet.rpcUrl, chainId: devnet.chainId, address: devnet.facilitators[0]! });
    const network = devnetX402Network(devnet.chainId);
    const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: facilitator.url })).register(network, new ExactEvmScheme());
    const app = express();
    app.use(
      paymentMiddleware(
        {
          'GET /report': { accepts: { scheme: 'exact', network, payTo, price: devnetUsdcPrice(devnet.token.address, PRICE), maxTimeoutSeconds: 300 }, description: 'A report' },
          // A merchant that names the token's EIP-712 domain wrongly: payers sign for version "1".
          'GET /misconfigured': {
            accepts: { scheme: 'exact', network, payTo, price: { amount: PRICE.toString(), asset: devnet.token.address, extra: { name: 'USD Coin', version: '1' } } },
          },
        },
        resourceServer,
      ),
    );
    app.get(['/report', '/misconfigured'], (_req, res) => void res.json({ report: 'sunny' }));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await facilitator?.close();
    await devnet?.close();
  });

  it('the facilitator supports exact on eip155:1337 and signs with a listed Base facilitator', async () => {
    const supported = (await (await fetch(`${facilitator.url}/supported`)).json()) as { kinds: unknown[]; signers: Record<string, string[]> };
    expect(supported.kinds).toEqual([{ x402Version: 2, scheme: 'exact', network: 'eip155:1337' }]);
    expect(supported.signers).toEqual({ 'eip155:*': [devnet.facilitators[0]] });
    expect(knownFacilitators('base')).toContain(facilitator.address);
  });

  it('an unpaid request gets 402 with PAYMENT-REQUIRED: the devnet network, the token and its EIP-712 domain', async () => {
    const res = await fetch(`${origin}/report`);
    expect(res.status).toBe(402);
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    expect(required.x402Version).toBe(2);
    expect(required.accepts).toEqual([
      expect.objectContaining({
        scheme: 'exact',
        network: 'eip155:1337',
        amount: '10000',
        asset: getAddress(devnet.token.address),
        payTo,
        maxTimeoutSeconds: 300,
        extra: { name: 'USD Coin', version: '2' },
      }),
    ]);
  });

  it('@x402/fetch pays with a viem account: EIP-3009 signed by the payer, settled on chain by the facilitator', async () => {
    const payer = devnet.accounts[3]!;
    const [payerBefore, payeeBefore] = [await balanceOf(payer.address), await balanceOf(payTo)];
    let sentPayment: string | null = null;
    const recording: typeof fetch = async (input, init) => {
      sentPayment ??= new Request(input, init).headers.get('payment-signature');
      return fetch(input, init);
    };
    const res = await devnetPayingFetch(payer, { chainId: devnet.chainId, token: devnet.token.address, fetch: recording })(`${origin}/report`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ report: 'sunny' });

    // What was sent: an EIP-3009 authorization from the payer to the merchant for the price.
    const payload = decodePaymentSignatureHeader(sentPayment!);
    expect(payload.payload).toMatchObject({ authorization: { from: payer.address, to: payTo, value: '10000', validAfter: '0' } });
    // What came back: the settlement, on the devnet.
    const settled = decodePaymentResponseHeader(res.headers.get('payment-response')!);
    expect(settled).toMatchObject({ success: true, network: 'eip155:1337', payer: payer.address });
    expect(facilitator.settlements).toContain(settled.transaction);

    // On chain: one transaction from the facilitator, AuthorizationUsed then Transfer, as on Base.
    const { publicClient } = devnetClients(devnet);
    const receipt = await publicClient.getTransactionReceipt({ hash: settled.transaction as Hex });
    expect(getAddress(receipt.from)).toBe(devnet.facilitators[0]);
    expect(getAddress(receipt.to!)).toBe(getAddress(devnet.token.address));
    const events = receipt.logs.map((log) => decodeEventLog({ abi, data: log.data, topics: log.topics }));
    expect(events.map((e) => e.eventName)).toEqual(['AuthorizationUsed', 'Transfer']);
    expect(events[1]!.args).toEqual({ from: payer.address, to: payTo, value: PRICE });
    expect(await balanceOf(payer.address)).toBe(payerBefore - PRICE);
    expect(await balanceOf(payTo)).toBe(payeeBefore + PRICE);

    // The same payment again: the facilitator's simulation finds the nonce used; nothing moves.
    const replay = await fetch(`${origin}/report`, { headers: { 'PAYMENT-SIGNATURE': sentPayment! } });
    expect(replay.status).toBe(402);
    expect(await balanceOf(payTo)).toBe(payeeBefore + PRICE);
  });

  it('without the token opted in to its spend controls, @x402/fetch refuses to sign for an unknown asset', async () => {
    const client = new x402Client().register(devnetX402Network(devnet.chainId), new ExactEvmClientScheme(devnet.accounts[4]!));
    await expect(wrapFetchWithPayment(fetch, client)(`${origin}/report`)).rejects.toThrow(/spendControls/);
  });

  it('a payment signed for another EIP-712 domain is refused by the facilitator (402) and moves nothing', async () => {
    const before = await balanceOf(payTo);
    const res = await devnetPayingFetch(devnet.accounts[4]!, { chainId: devnet.chainId, token: devnet.token.address })(`${origin}/misconfigured`);
    expect(res.status).toBe(402);
    // The token's own revert, through the facilitator's simulation. (@x402/evm would name the
    // mismatched version after a diagnostic multicall, but the devnet has no Multicall3.)
    const required = decodePaymentRequiredHeader(res.headers.get('payment-required')!);
    expect(required.error).toBe('invalid_exact_evm_transaction_simulation_failed');
    expect(await balanceOf(payTo)).toBe(before);
  });
});
