// A local x402 facilitator for the devnet, built from the registry packages: @x402/core's
// x402Facilitator with @x402/evm's `exact` scheme (EIP-3009 transferWithAuthorization), served over
// HTTP on 127.0.0.1 with the three routes @x402/core's HTTPFacilitatorClient calls (POST /verify,
// POST /settle, GET /supported). It settles from one of the devnet's unlocked Base facilitator
// signers, an address in the ingester's facilitator list: its payments are verified activity.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { toFacilitatorEvmSigner, type FacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { getAddress, type Abi, type Address, type Hex } from 'viem';
import { devnetClients } from './clients.ts';
import { devnetX402Network } from './x402-client.ts';

export interface LocalFacilitatorOptions {
  rpcUrl: string;
  chainId: number;
  /**
   * The account that submits settlements. It signs nothing itself: the node must hold it unlocked
   * (the devnet unlocks its `facilitators`, real Base facilitator signers).
   */
  address: Address;
  /** 0 picks a free port. */
  port?: number;
  host?: string;
}

export interface LocalFacilitator {
  /** `http://127.0.0.1:PORT`, for HTTPFacilitatorClient({ url }). */
  url: string;
  /** The CAIP-2 network it settles on, `eip155:<chainId>`. */
  network: `eip155:${number}`;
  address: Address;
  /** Settlements submitted so far (transaction hashes), newest last. */
  settlements: Hex[];
  close(): Promise<void>;
}

/**
 * @x402/evm's FacilitatorEvmSigner over viem clients bound to the devnet, with the node-held
 * `address` as the sender: a plain address as `account` makes viem send eth_sendTransaction, so the
 * node signs (as devnet/x402.ts does for the simulator's payments).
 */
export function devnetFacilitatorSigner(rpcUrl: string, chainId: number, address: Address): FacilitatorEvmSigner {
  const { publicClient, walletClient } = devnetClients({ rpcUrl, chainId });
  return toFacilitatorEvmSigner(
    {
      address,
      getCode: ({ address: at }) => publicClient.getCode({ address: at }),
      readContract: ({ address: at, abi, functionName, args }) =>
        publicClient.readContract({ address: at, abi: abi as Abi, functionName, args: args ?? [] }),
      verifyTypedData: (args) => publicClient.verifyTypedData(args as Parameters<typeof publicClient.verifyTypedData>[0]),
      writeContract: ({ address: at, abi, functionName, args, gas, dataSuffix }) =>
        walletClient.writeContract({
          account: address,
          chain: walletClient.chain,
          address: at,
          abi: abi as Abi,
          functionName,
          args,
          ...(gas === undefined ? {} : { gas }),
          ...(dataSuffix === undefined ? {} : { dataSuffix }),
        }),
      sendTransaction: ({ to, data }) => walletClient.sendTransaction({ account: address, chain: walletClient.chain, to, data }),
      waitForTransactionReceipt: ({ hash, timeout }) => publicClient.waitForTransactionReceipt({ hash, ...(timeout === undefined ? {} : { timeout }) }),
    },
    // ganache mines on send; a receipt that takes this long is not coming.
    { confirmationTimeoutMs: 30_000 },
  );
}

/** Starts the facilitator's HTTP server on 127.0.0.1 (or `host`). */
export async function startLocalFacilitator(opts: LocalFacilitatorOptions): Promise<LocalFacilitator> {
  const network = devnetX402Network(opts.chainId);
  const address = getAddress(opts.address);
  const settlements: Hex[] = [];
  // Only the devnet's network, with the v2 `exact` scheme: registerExactEvmScheme would also
  // register the v1 scheme for every named v1 network (base, polygon, ...), which this does not serve.
  const facilitator = new x402Facilitator()
    .register(network, new ExactEvmScheme(devnetFacilitatorSigner(opts.rpcUrl, opts.chainId, address)))
    .onAfterSettle(async ({ result }) => {
      if (result.success && result.transaction) settlements.push(result.transaction as Hex);
    });

  const server = http.createServer((req, res) => {
    handle(facilitator, req, res).catch((err: unknown) => send(res, 500, { error: err instanceof Error ? err.message : String(err) }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    network,
    address,
    settlements,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(facilitator: x402Facilitator, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://facilitator').pathname;
  if (req.method === 'GET' && path === '/supported') return send(res, 200, facilitator.getSupported());
  if (req.method === 'POST' && (path === '/verify' || path === '/settle')) {
    const body = await readJson(req);
    const { paymentPayload, paymentRequirements } = (body ?? {}) as { paymentPayload?: PaymentPayload; paymentRequirements?: PaymentRequirements };
    if (!paymentPayload || !paymentRequirements) return send(res, 400, { error: 'paymentPayload and paymentRequirements are required' });
    // A payment that does not verify, or does not settle, is an answer (isValid / success false), not an error.
    const answer = path === '/verify' ? await facilitator.verify(paymentPayload, paymentRequirements) : await facilitator.settle(paymentPayload, paymentRequirements);
    return send(res, 200, answer);
  }
  send(res, 404, { error: `no route ${req.method} ${path}` });
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)));
}
