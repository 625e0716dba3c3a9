// `npm run merchant`: the example merchant on its own, beside a running service and devnet (e.g.
// `npm run demo` in another terminal, which also starts one). Settings come from the environment:
//
//   REPUTATION_API_KEY   required: a key on a plan with assess and sessions (the demo prints a pro one)
//   REPUTATION_URL       the identity service (default http://127.0.0.1:8080)
//   RPC_URL_DEVNET       the devnet's JSON-RPC (default http://127.0.0.1:8545)
//   MERCHANT_TOKEN       the devnet's USDC look-alike (default: the devnet chain profile's)
//   FACILITATOR_URL      an x402 facilitator for the devnet; without it one is started here, on
//                        127.0.0.1, settling from FACILITATOR_ADDRESS (default: the first Base
//                        facilitator signer the devnet unlocks, which the ingester counts as verified)
//   MERCHANT_PORT        default 4021; MERCHANT_HOST default 127.0.0.1
//   MERCHANT_PAY_TO      the payee (default a fixed address of the example's own)
//   MERCHANT_PRICE       in USDC base units (default 10000 = 0.01 USDC)
//   MERCHANT_FAIL_OPEN   true: the service failing lets buyers through, degraded (default false)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPublicClient, getAddress, http, isAddress, type Address } from 'viem';
import { chainProfiles } from '../../pipeline/chain/profiles.ts';
import { knownFacilitators } from '../../devnet/facilitators.ts';
import { startLocalFacilitator, type LocalFacilitator } from '../../devnet/x402-facilitator.ts';
import { DEFAULT_PRICE, defaultPayTo, merchantPolicy, paidPath, startMerchant, type RunningMerchant } from './merchant.ts';

export class MerchantSettingError extends Error {}

export interface MerchantSettings {
  serviceUrl: string;
  apiKey: string;
  rpcUrl: string;
  token: Address;
  facilitatorUrl: string | null;
  facilitatorAddress: Address;
  port: number;
  host: string;
  payTo: Address;
  price: bigint;
  failOpen: boolean;
}

export function merchantSettings(env: NodeJS.ProcessEnv): MerchantSettings {
  const apiKey = env.REPUTATION_API_KEY?.trim();
  if (!apiKey) throw new MerchantSettingError('REPUTATION_API_KEY is required: a key on a plan with assess and sessions (npm run demo prints a pro one)');
  const url = (name: string, fallback: string) => {
    const value = env[name]?.trim() || fallback;
    try {
      const u = new URL(value);
      if (u.protocol === 'http:' || u.protocol === 'https:') return value.replace(/\/+$/, '');
    } catch {
      // below
    }
    throw new MerchantSettingError(`${name} must be an http or https URL, not ${JSON.stringify(value)}`);
  };
  const addressOf = (name: string, fallback: string): Address => {
    const value = env[name]?.trim() || fallback;
    if (!isAddress(value, { strict: false })) throw new MerchantSettingError(`${name} must be a 0x address, not ${JSON.stringify(value)}`);
    return getAddress(value);
  };
  const whole = (name: string, fallback: bigint, max: bigint): bigint => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    if (!/^\d+$/.test(raw) || BigInt(raw) > max) throw new MerchantSettingError(`${name} must be a whole number up to ${max}, not ${JSON.stringify(raw)}`);
    return BigInt(raw);
  };
  const failOpen = env.MERCHANT_FAIL_OPEN?.trim().toLowerCase() ?? '';
  if (!['', 'true', 'false'].includes(failOpen)) throw new MerchantSettingError(`MERCHANT_FAIL_OPEN must be true or false, not ${JSON.stringify(env.MERCHANT_FAIL_OPEN)}`);
  const price = whole('MERCHANT_PRICE', DEFAULT_PRICE, 1_000_000_000n);
  if (price === 0n) throw new MerchantSettingError('MERCHANT_PRICE must be at least 1');
  return {
    serviceUrl: url('REPUTATION_URL', 'http://127.0.0.1:8080'),
    apiKey,
    rpcUrl: url('RPC_URL_DEVNET', 'http://127.0.0.1:8545'),
    token: addressOf('MERCHANT_TOKEN', (chainProfiles.devnet!.token as { address: string }).address),
    facilitatorUrl: env.FACILITATOR_URL?.trim() ? url('FACILITATOR_URL', '') : null,
    facilitatorAddress: addressOf('FACILITATOR_ADDRESS', knownFacilitators('base')[0]!),
    port: Number(whole('MERCHANT_PORT', 4021n, 65535n)),
    host: env.MERCHANT_HOST?.trim() || '127.0.0.1',
    payTo: addressOf('MERCHANT_PAY_TO', defaultPayTo),
    price,
    failOpen: failOpen === 'true',
  };
}

export interface RunningExample {
  merchant: RunningMerchant;
  /** The facilitator started here (null when FACILITATOR_URL named one). */
  facilitator: LocalFacilitator | null;
  chainId: number;
  facilitatorUrl: string;
  close(): Promise<void>;
}

/** Checks the devnet is there (chain id, the token deployed), starts the facilitator if needed, then the merchant. */
export async function startExampleMerchant(s: MerchantSettings, log: (line: string) => void = () => {}): Promise<RunningExample> {
  const chain = createPublicClient({ transport: http(s.rpcUrl, { retryCount: 0, timeout: 5_000 }) });
  let chainId: number;
  try {
    chainId = await chain.getChainId();
  } catch {
    throw new MerchantSettingError(`no devnet answers at RPC_URL_DEVNET=${s.rpcUrl} (start one with npm run demo or reputation devnet)`);
  }
  const code = await chain.getCode({ address: s.token });
  if (!code || code === '0x') throw new MerchantSettingError(`no token contract at ${s.token} on ${s.rpcUrl} (MERCHANT_TOKEN)`);

  const facilitator = s.facilitatorUrl ? null : await startLocalFacilitator({ rpcUrl: s.rpcUrl, chainId, address: s.facilitatorAddress });
  const facilitatorUrl = s.facilitatorUrl ?? facilitator!.url;
  const merchant = await startMerchant({
    serviceUrl: s.serviceUrl,
    apiKey: s.apiKey,
    chainId,
    token: s.token,
    facilitatorUrl,
    payTo: s.payTo,
    price: s.price,
    failOpen: s.failOpen,
    port: s.port,
    host: s.host,
    log,
  }).catch(async (err: unknown) => {
    await facilitator?.close();
    throw err;
  });
  return {
    merchant,
    facilitator,
    chainId,
    facilitatorUrl,
    close: async () => {
      await merchant.close();
      await facilitator?.close();
    },
  };
}

/** What the example prints once it listens. */
export function describeMerchant(s: Pick<MerchantSettings, 'serviceUrl' | 'token' | 'payTo' | 'price' | 'failOpen'>, running: Pick<RunningExample, 'merchant' | 'chainId' | 'facilitatorUrl' | 'facilitator'>): string[] {
  const usdc = `${Number(s.price) / 1e6} USDC`;
  return [
    `example merchant: GET ${running.merchant.url}${paidPath} for ${usdc} over x402 (exact, eip155:${running.chainId}, token ${s.token}), paid to ${s.payTo}`,
    `  identity gate: ${s.serviceUrl}, policy ${JSON.stringify(merchantPolicy)}, fail ${s.failOpen ? 'open' : 'closed'}`,
    `  facilitator: ${running.facilitatorUrl}${running.facilitator ? ` (started here, settling from ${running.facilitator.address})` : ''}`,
  ];
}

async function main(): Promise<void> {
  let settings: MerchantSettings;
  let running: RunningExample;
  try {
    settings = merchantSettings(process.env);
    running = await startExampleMerchant(settings, (line) => process.stderr.write(`merchant: ${line}\n`));
  } catch (err) {
    process.stderr.write(`merchant: ${(err as Error).message}\n`);
    process.exit(err instanceof MerchantSettingError ? 2 : 1);
  }
  process.stdout.write(`${describeMerchant(settings, running).join('\n')}\nCtrl-C stops it.\n`);
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) await main();
