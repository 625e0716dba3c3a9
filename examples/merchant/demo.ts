// The example merchant as `npm run demo` runs it: beside the demo's service and devnet, with its
// own facilitator (settling from the first Base facilitator signer the devnet unlocks), and a demo
// buyer wallet with USDC to pay it from (minted by the token's minter, the devnet's deployer).
import { keccak256, parseUnits, stringToBytes, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from '../../devnet/artifacts.ts';
import { devnetClients } from '../../devnet/clients.ts';
import type { Devnet } from '../../devnet/index.ts';
import { startLocalFacilitator } from '../../devnet/x402-facilitator.ts';
import { describeMerchant } from './main.ts';
import { DEFAULT_PRICE, defaultPayTo, paidPath, startMerchant } from './merchant.ts';

/** The demo buyer's key: a devnet-only key, printed by the demo so the payer script can use it. */
export const demoBuyerKey: Hex = keccak256(stringToBytes('wallet-reputation demo buyer'));
const BUYER_USDC = parseUnits('100', 6);

export interface DemoMerchant {
  url: string;
  /** What the demo prints about it. */
  lines: string[];
  close(): Promise<void>;
}

export async function startDemoMerchant(opts: { devnet: Devnet; serviceUrl: string; apiKey: string; port: number; log?: (line: string) => void }): Promise<DemoMerchant> {
  const { devnet } = opts;
  const buyer = privateKeyToAccount(demoBuyerKey);
  const { publicClient, walletClient } = devnetClients(devnet);
  const hash = await walletClient.writeContract({
    account: devnet.accounts[0]!,
    address: devnet.token.address,
    abi: loadArtifact('Eip3009Token').abi,
    functionName: 'mint',
    args: [buyer.address, BUYER_USDC],
  });
  await publicClient.waitForTransactionReceipt({ hash });

  const facilitator = await startLocalFacilitator({ rpcUrl: devnet.rpcUrl, chainId: devnet.chainId, address: devnet.facilitators[0]! });
  const merchant = await startMerchant({
    serviceUrl: opts.serviceUrl,
    apiKey: opts.apiKey,
    chainId: devnet.chainId,
    token: devnet.token.address,
    facilitatorUrl: facilitator.url,
    port: opts.port,
    ...(opts.log ? { log: opts.log } : {}),
  }).catch(async (err: unknown) => {
    await facilitator.close();
    throw err;
  });
  const endpoint = `${merchant.url}${paidPath}`;
  const settings = { serviceUrl: opts.serviceUrl, token: devnet.token.address, payTo: defaultPayTo, price: DEFAULT_PRICE, failOpen: false };
  return {
    url: merchant.url,
    lines: [
      ...describeMerchant(settings, { merchant, chainId: devnet.chainId, facilitatorUrl: facilitator.url, facilitator }),
      `Buy a report as an agent (the demo buyer ${buyer.address} holds 100 USDC): the merchant answers 403 identity_verification_required,`,
      'the payer shows the verify page (choose United States, 21+, "Verification succeeds"), polls, stores the operator token, pays over x402, prints the report:',
      `  npm run merchant:pay -- ${endpoint} --key ${demoBuyerKey}`,
      `  npx reputation agent fetch ${endpoint}    # the same identity steps; agent fetch does not pay, so it ends at the merchant's 402`,
      `Then, after the next ingest and scoring (every minute), the payee's record counts the payment as verified:`,
      `  curl -s -H 'X-API-Key: ${opts.apiKey}' ${opts.serviceUrl}/v1/reputation/${defaultPayTo}`,
    ],
    close: async () => {
      await merchant.close();
      await facilitator.close();
    },
  };
}
