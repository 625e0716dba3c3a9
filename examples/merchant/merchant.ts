// The example merchant: a weather report for 0.01 USDC over x402 on the devnet, behind the identity
// gate. Express, because the registry's x402 middleware is for Express (@x402/express; there is no
// Koa one) and the gate has an Express adapter: the two are one `app.use` each.
//
//   GET /weather → gate (assess with the policy below and the payment's signer)
//                → x402 (402 with the requirements; with a payment: verify, handler, settle)
//                → the report; once the settled 200 is sent, the gate captures the signer
//
// The gate runs first, so a buyer with no identity hears how to get one (403
// identity_verification_required) before being asked to pay, and a refused one never pays. It
// reads the signer from the x402 payment header (the EIP-3009 `from`) before the facilitator has
// verified it; that is safe because nothing is served or captured unless that same payment then
// verifies and settles (a forged `from` only gets its sender refused).
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import { HTTPFacilitatorClient } from '@x402/core/server';
import { ExactEvmScheme } from '@x402/evm/exact/server';
import { keccak256, stringToBytes, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createGate, type ExpressGateOptions, type GatePass, type Policy, type ServiceProblem } from 'wallet-reputation/gate';
import { devnetUsdcPrice, devnetX402Network } from '../../devnet/x402-client.ts';

/** What the merchant demands of a buyer: a verified person of 21 or more in the US, screened clear. */
export const merchantPolicy: Policy = { require_kyc: true, min_age: 21, require_sanctions_clear: true, allowed_jurisdictions: ['US'] };

/** 0.01 USDC (6 decimals). */
export const DEFAULT_PRICE = 10_000n;

/** The merchant's payee when none is given: a fixed address of its own (no key is needed to be paid). */
export const defaultPayTo: Address = privateKeyToAccount(keccak256(stringToBytes('wallet-reputation example merchant'))).address;

export const paidPath = '/weather';

export interface MerchantOptions {
  /** The identity service, e.g. http://127.0.0.1:8080. */
  serviceUrl: string;
  /** The merchant's API key there: a plan with assess and sessions (pro or enterprise). */
  apiKey: string;
  /** The devnet's chain id (1337) and its USDC look-alike. */
  chainId: number;
  token: Address;
  /** An x402 facilitator that serves eip155:<chainId> (devnet/x402-facilitator.ts). */
  facilitatorUrl: string;
  payTo?: Address;
  /** In token base units; default 0.01 USDC. */
  price?: bigint;
  /** The service failing lets buyers through, degraded, instead of 503 (default false). */
  failOpen?: boolean;
  /** Each call to the service (default 3000 ms). */
  gateTimeoutMs?: number;
  /** Who signed the payment; default the x402 header's EIP-3009 `from` (the gate's x402PaymentSigner). */
  payment?: ExpressGateOptions['payment'];
  /** One line per event worth a merchant's log. */
  log?: (line: string) => void;
}

export function createMerchantApp(opts: MerchantOptions): express.Express {
  const network = devnetX402Network(opts.chainId);
  const payTo = opts.payTo ?? defaultPayTo;
  const price = opts.price ?? DEFAULT_PRICE;
  const log = opts.log ?? (() => {});

  const gate = createGate({
    serviceUrl: opts.serviceUrl,
    apiKey: opts.apiKey,
    policy: merchantPolicy,
    productName: 'Weather report',
    failOpen: opts.failOpen ?? false,
    ...(opts.gateTimeoutMs === undefined ? {} : { timeoutMs: opts.gateTimeoutMs }),
    onServiceProblem: (p: ServiceProblem) => log(`identity service: ${p.call}${p.status ? ` ${p.status}` : ''}${p.code ? ` ${p.code}` : ''}: ${p.detail}`),
  });
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: opts.facilitatorUrl }))
    .register(network, new ExactEvmScheme())
    .onAfterSettle(async ({ result }) => log(`settled ${result.transaction} from ${result.payer ?? '?'}`))
    .onSettleFailure(async ({ error }) => log(`settlement failed: ${error.message}`));

  const app = express();
  app.disable('x-powered-by');
  app.get('/', (_req, res) => {
    res.json({
      merchant: 'Example weather merchant',
      endpoint: paidPath,
      price: { amount: price.toString(), asset: opts.token, decimals: 6, network, pay_to: payTo },
      identity: { service: opts.serviceUrl, policy: merchantPolicy, headers: ['X-Operator-Token', 'X-Wallet-Address'] },
    });
  });
  app.use(paidPath, gate.express(opts.payment === undefined ? {} : { payment: opts.payment }));
  app.use(
    paymentMiddleware(
      {
        [`GET ${paidPath}`]: {
          accepts: { scheme: 'exact', network, payTo, price: devnetUsdcPrice(opts.token, price), maxTimeoutSeconds: 300 },
          description: 'Weather report',
          mimeType: 'application/json',
        },
      },
      resourceServer,
    ),
  );
  app.get(paidPath, (req, res) => {
    const identity = res.locals.identity as GatePass;
    res.json({
      report: { place: 'Springfield', forecast: 'sunny', high_c: 24, low_c: 13 },
      identity: {
        status: identity.identityStatus,
        mode: identity.identityMode,
        ...(identity.walletAddress ? { wallet: identity.walletAddress } : {}),
        ...(identity.degraded ? { degraded: true, infra_reason: identity.infraReason } : {}),
      },
    });
  });
  return app;
}

export interface RunningMerchant {
  url: string;
  close(): Promise<void>;
}

/** Starts the merchant on 127.0.0.1 (port 0: a free one). */
export async function startMerchant(opts: MerchantOptions & { port?: number; host?: string }): Promise<RunningMerchant> {
  const app = createMerchantApp(opts);
  const host = opts.host ?? '127.0.0.1';
  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(opts.port ?? 0, host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
