// `npm run merchant:pay -- URL`: a buyer agent that pays. The agent client of `reputation agent
// fetch` (gate/agent: identity header, verify URL and QR code, polling, the stored token) around
// @x402/fetch paying on the devnet with a viem account, as gate/agent/client.ts composes them:
// the agent client outside, the paying fetch inside, so every retry it makes pays afresh.
//
//   --key 0x…          the payer's private key (or PAYER_PRIVATE_KEY); its address is also the
//                      keystore wallet sent as X-Wallet-Address when no operator token applies
//   --no-stored-token  do not present the stored operator token (wallet mode with the key's address)
//   --store FILE       the credential store (default: reputation agent fetch's)
//   --token 0x…        the USDC the payer agrees to pay in (default the devnet profile's; MERCHANT_TOKEN)
//   --chain-id N       default 1337; --max N: most base units one payment may cost (default 1000000)
//   --json             print {"status", "body", "settlement"} as one JSON line
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { getAddress, isAddress, isHex, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { AgentError, createAgentClient } from 'wallet-reputation/gate/agent';
import { defaultCredentialStore } from '../../cli/agent.ts';
import { chainProfiles } from '../../pipeline/chain/profiles.ts';
import { DEVNET_CHAIN_ID } from '../../devnet/node.ts';
import { devnetPayingFetch } from '../../devnet/x402-client.ts';

class PayUsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      key: { type: 'string' },
      'no-stored-token': { type: 'boolean', default: false },
      store: { type: 'string' },
      token: { type: 'string' },
      'chain-id': { type: 'string' },
      max: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [url] = positionals;
  if (!url || positionals.length > 1 || !/^https?:\/\//.test(url)) throw new PayUsageError('usage: npm run merchant:pay -- URL [--key 0x…] [--no-stored-token] [--store FILE] [--json]');
  const key = values.key ?? process.env.PAYER_PRIVATE_KEY;
  if (!key || !isHex(key) || key.length !== 66) throw new PayUsageError('--key (or PAYER_PRIVATE_KEY) must be a 32-byte hex private key (npm run demo prints a devnet one)');
  const token = values.token ?? process.env.MERCHANT_TOKEN ?? (chainProfiles.devnet!.token as { address: string }).address;
  if (!isAddress(token, { strict: false })) throw new PayUsageError(`--token must be a 0x address, not ${JSON.stringify(token)}`);
  const chainId = values['chain-id'] === undefined ? DEVNET_CHAIN_ID : Number(values['chain-id']);
  if (!Number.isSafeInteger(chainId) || chainId < 1) throw new PayUsageError('--chain-id must be a positive whole number');
  if (values.max !== undefined && !/^\d+$/.test(values.max)) throw new PayUsageError('--max must be a whole number of token base units');

  const payer = privateKeyToAccount(key as Hex);
  let drawn = false;
  const client = createAgentClient({
    credentialStore: values.store ?? defaultCredentialStore(),
    walletAddress: payer.address,
    skipStoredToken: values['no-stored-token'],
    onVerifyUrl: (verifyUrl, qr) => process.stderr.write(process.stderr.isTTY ? `\nTo continue, verify your identity: open this page (or scan the code)\n\n${qr}\n${verifyUrl}\n\n` : `verify your identity at ${verifyUrl}\n`),
    onProgress: (line) => {
      if (process.stderr.isTTY) {
        process.stderr.write(`\r${line}\x1b[K`);
        drawn = true;
      } else process.stderr.write(`${line}\n`);
    },
    fetch: devnetPayingFetch(payer, { chainId, token: getAddress(token), ...(values.max === undefined ? {} : { maxAmountPerPayment: BigInt(values.max) }) }),
  });

  let res: Response;
  try {
    res = await client.fetch(url);
  } catch (err) {
    if (drawn) process.stderr.write('\n');
    if (!(err instanceof AgentError)) throw err;
    if (values.json) process.stdout.write(`${JSON.stringify({ error: { code: err.code, message: err.message, status: err.status, reasons: err.reasons } })}\n`);
    process.stderr.write(`merchant:pay: ${err.code}: ${err.message}\n${err.userMessage ? `${err.userMessage}\n` : ''}`);
    return 1;
  }
  if (drawn) process.stderr.write('\n');
  const text = await res.text();
  const header = res.headers.get('payment-response');
  const settlement = header ? decodePaymentResponseHeader(header) : null;
  if (values.json) {
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: the text
    }
    process.stdout.write(`${JSON.stringify({ status: res.status, body, settlement })}\n`);
  } else {
    process.stdout.write(text.endsWith('\n') || !text ? text : `${text}\n`);
    if (settlement?.success) process.stderr.write(`paid from ${payer.address}: transaction ${settlement.transaction} on ${settlement.network}\n`);
  }
  if (!res.ok) process.stderr.write(`merchant:pay: the merchant answered ${res.status}\n`);
  return res.ok ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`merchant:pay: ${(err as Error).message}\n`);
    process.exitCode = err instanceof PayUsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
  }
}
