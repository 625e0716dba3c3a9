// The example merchant end to end over real HTTP (issue 30): the service (real OFAC address lists,
// the tiny SDN names list, the devnet ingested), the devnet, an x402 facilitator, and the merchant
// started by its one command (`npm run merchant`, as a child process). A buyer agent with no
// identity is sent to verify; the person does so on the verify page in Chromium; the agent client
// polls, stores the token, retries and pays over x402 (@x402/fetch, a viem account); the merchant
// captures the paying wallet, which then works as X-Wallet-Address with its own payments. Another
// operator's wallet signing is refused, an OFAC-listed signer is refused, the paid activity shows
// up as verified in the payee's reputation after the next ingest and scoring, and with the service
// stopped the merchant fails closed (503) or, configured so, open (degraded).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { decodePaymentResponseHeader } from '@x402/fetch';
import { getAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { devnetClients } from '../devnet/clients.ts';
import { loadArtifact } from '../devnet/artifacts.ts';
import { startLocalFacilitator, type LocalFacilitator } from '../devnet/x402-facilitator.ts';
import { devnetPayingFetch } from '../devnet/x402-client.ts';
import { createAgentClient } from '../gate/agent/index.ts';
import { defaultPayTo, merchantPolicy, paidPath, startMerchant, type RunningMerchant } from '../examples/merchant/merchant.ts';
import { merchantSettings } from '../examples/merchant/main.ts';
import { tempDataDir } from './helpers/temp.ts';
import { addressListsDir } from './helpers/ofac-data.ts';
import { call, sdnTinyCsv, verifiedLogin } from './helpers/identity.ts';
import { freePort } from './helpers/free-port.ts';
import { repoRoot } from './helpers/cli.ts';

/** SDN 27307's ETH address (address-lists-2024-09-27): no key exists for it. */
const listedEth = '0x098B716B8Aaf21512996dC57EB0615e2383E2f96';
const PRICE = 10_000n;

const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const { abi } = loadArtifact('Eip3009Token');

interface MerchantProcess {
  child: ChildProcess;
  url: string;
  output(): string;
}

/** `npm run merchant` (its command, node --import tsx examples/merchant/main.ts), ready once it prints its line. */
async function startMerchantCommand(env: NodeJS.ProcessEnv): Promise<MerchantProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('examples', 'merchant', 'main.ts')], { cwd: repoRoot, env });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (out += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the merchant did not start in 30 s:\n${out}`)), 30_000);
    child.stdout!.on('data', () => {
      const m = /example merchant: GET (http:\/\/\S+?)\/weather /.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the merchant exited ${code}:\n${out}`));
    });
  });
  return { child, url, output: () => out };
}

describe('the example merchant, end to end', () => {
  const dataDir = tempDataDir('merchant-e2e');
  let devnet: Devnet;
  let service: RunningServer;
  let serviceStopped = false;
  let apiKey: string;
  let merchant: MerchantProcess;
  let browser: Browser;
  // In-process merchants: one handing the gate a listed signer, one failing open; their facilitator.
  let facilitator: LocalFacilitator;
  let listedSignerMerchant: RunningMerchant;
  let failOpenMerchant: RunningMerchant;

  // Payers: devnet accounts, each with 10,000 USDC.
  let payerA: ReturnType<typeof privateKeyToAccount>;
  let payerB: ReturnType<typeof privateKeyToAccount>;
  let payerC: ReturnType<typeof privateKeyToAccount>;
  const store = path.join(dataDir, 'agent', 'credentials.json');
  let operatorToken = '';
  const settled: string[] = [];

  const usdc = (address: Address) => devnetClients(devnet).publicClient.readContract({ address: devnet.token.address, abi, functionName: 'balanceOf', args: [address] }) as Promise<bigint>;
  /** What the merchant answered, request by request: status, the identity header sent, whether it carried a payment. */
  const exchanges: { status: number; identity: string; paid: boolean }[] = [];
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    const res = await fetch(request);
    if (new URL(request.url).pathname === paidPath) {
      const identity = request.headers.has('x-operator-token') ? 'token' : request.headers.has('x-wallet-address') ? 'wallet' : 'none';
      exchanges.push({ status: res.status, identity, paid: request.headers.has('payment-signature') });
    }
    return res;
  };
  const paying = (payer: ReturnType<typeof privateKeyToAccount>) => devnetPayingFetch(payer, { chainId: devnet.chainId, token: devnet.token.address, fetch: recording });
  /** A settled x402 answer: its PAYMENT-RESPONSE, recorded. */
  const settlementOf = (res: Response) => {
    const header = res.headers.get('payment-response');
    const settlement = header ? decodePaymentResponseHeader(header) : null;
    if (settlement?.success) settled.push(settlement.transaction);
    return settlement;
  };

  beforeAll(async () => {
    if (!existsSync(chromiumPath)) throw new Error(`Chromium is not at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`);
    devnet = await startDevnet({ port: 0 });
    [payerA, payerB, payerC] = [devnet.accounts[1]!, devnet.accounts[2]!, devnet.accounts[3]!];
    service = await startServer(
      loadConfig({
        DATA_DIR: dataDir,
        PORT: '0',
        SANCTIONS_LIST_SOURCE: addressListsDir,
        SANCTIONS_NAMES_SOURCE: sdnTinyCsv,
        RPC_URL_DEVNET: devnet.rpcUrl,
        // The test runs ingestion and scoring itself, when it wants them.
        INGEST_INTERVAL_SECONDS: '3600',
        SCORE_INTERVAL_SECONDS: '3600',
        SCORE_FULL_INTERVAL_SECONDS: '0',
        // Every request of the browser, the agent and the merchant comes from 127.0.0.1.
        IP_RATE_PER_MINUTE: '100000',
        IP_RATE_PER_SECOND: '100000',
      }),
      silentLogger,
    );
    await (await service.jobs.run('refresh-sanctions-list', {})).done;
    apiKey = (await createAccount(service.store, { plan: 'pro', name: 'Example weather merchant' }, service.keys)).api_key;

    merchant = await startMerchantCommand({
      ...process.env,
      REPUTATION_URL: service.url,
      REPUTATION_API_KEY: apiKey,
      RPC_URL_DEVNET: devnet.rpcUrl,
      MERCHANT_PORT: String(await freePort()),
    });
    facilitator = await startLocalFacilitator({ rpcUrl: devnet.rpcUrl, chainId: devnet.chainId, address: devnet.facilitators[1]! });
    const common = { serviceUrl: service.url, apiKey, chainId: devnet.chainId, token: devnet.token.address, facilitatorUrl: facilitator.url };
    listedSignerMerchant = await startMerchant({ ...common, payment: () => ({ signer: listedEth, network: 'evm' as const }) });
    failOpenMerchant = await startMerchant({ ...common, failOpen: true, gateTimeoutMs: 1000 });
    browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    merchant?.child.kill('SIGTERM');
    await listedSignerMerchant?.close();
    await failOpenMerchant?.close();
    await facilitator?.close();
    if (!serviceStopped) await service?.close();
    await devnet?.close();
  });

  it('the merchant says what it sells, for how much, on which chain, under which policy', async () => {
    expect(merchant.output()).toMatch(/facilitator: http:\/\/127\.0\.0\.1:\d+ \(started here, settling from 0x73b2/i);
    const about = await (await fetch(merchant.url)).json();
    expect(about).toMatchObject({
      endpoint: '/weather',
      price: { amount: '10000', asset: getAddress(devnet.token.address), network: 'eip155:1337', pay_to: defaultPayTo },
      identity: { policy: { require_kyc: true, min_age: 21, require_sanctions_clear: true, allowed_jurisdictions: ['US'] } },
    });
  });

  it('no identity → 403 identity_verification_required → verified in Chromium → poll → token → x402 payment → 200 → wallet captured', { timeout: 90_000 }, async () => {
    // The payee is unknown to the service before any payment.
    expect((await call(service.url, 'GET', `/v1/reputation/${defaultPayTo}`, { key: apiKey })).status).toBe(404);

    // First, what the gate answers an agent that presents nothing (the x402 layer never sees it).
    const bare = await fetch(`${merchant.url}${paidPath}`);
    expect(bare.status).toBe(403);
    const denial = ((await bare.json()) as { error: any }).error;
    expect(denial).toMatchObject({ code: 'identity_verification_required', agent_instructions: { action: 'deliver_verify_url_and_poll' } });
    expect(denial.verify_url).toMatch(/\/verify\/sess_/);
    expect(bare.headers.get('payment-required')).toBeNull();

    // The agent client, paying through @x402/fetch: it hears the same denial and shows the URL.
    const shown: string[] = [];
    let browserDone: Promise<string> | undefined;
    const agent = createAgentClient({
      credentialStore: store,
      fetch: paying(payerA),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 300))),
      onVerifyUrl: (url) => {
        shown.push(url);
        // The person opens the page in Chromium and completes the sandbox verification.
        browserDone = (async () => {
          const context = await browser.newContext({ viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
          try {
            const page = await context.newPage();
            await page.goto(url, { waitUntil: 'load' });
            expect(await page.locator('main').innerText()).toContain('Example weather merchant');
            await page.locator('#jurisdiction').selectOption('US');
            await page.locator('#age').selectOption('21+');
            await page.locator('#name').pressSequentially('Margaret Whitfield');
            const loaded = page.waitForEvent('load');
            await page.locator('button[data-outcome="verified"]').click();
            await loaded;
            return await page.locator('main').innerText();
          } finally {
            await context.close();
          }
        })();
      },
    });
    const before = { payer: await usdc(payerA.address), payee: await usdc(defaultPayTo) };
    exchanges.length = 0;
    const res = await agent.fetch(`${merchant.url}${paidPath}`);
    // No identity: 403 from the gate; with the token: 402 from x402; with the token and a payment: 200.
    expect(exchanges).toEqual([
      { status: 403, identity: 'none', paid: false },
      { status: 402, identity: 'token', paid: false },
      { status: 200, identity: 'token', paid: true },
    ]);
    expect(shown).toHaveLength(1);
    expect(await browserDone).toContain('Verification complete.');
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ report: { forecast: 'sunny' }, identity: { status: 'verified', mode: 'operator_token' } });
    // Paid over x402: settled on the devnet from payer A to the merchant.
    const settlement = settlementOf(res);
    expect(settlement).toMatchObject({ success: true, network: 'eip155:1337', payer: payerA.address });
    expect(await usdc(payerA.address)).toBe(before.payer - PRICE);
    expect(await usdc(defaultPayTo)).toBe(before.payee + PRICE);

    // The token is stored (the agent keeps it), and the merchant captured payer A for it, fire and forget.
    const stored = await createAgentClient({ credentialStore: store }).store.list();
    expect(stored).toHaveLength(1);
    operatorToken = stored[0]!.operatorToken;
    expect(operatorToken).toMatch(/^opc_/);
    let assessed: any;
    for (let i = 0; i < 50; i++) {
      assessed = (await call(service.url, 'POST', '/v1/assess', { key: apiKey, body: { address: payerA.address, policy: merchantPolicy } })).body;
      if (assessed.decision === 'allow') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(assessed).toMatchObject({ decision: 'allow', identity_method: 'wallet' });
    expect(assessed.linked_wallets).toContain(payerA.address.toLowerCase());
  });

  it('the next request with X-Wallet-Address and a payment from that wallet passes', async () => {
    // Unpaid, x402's 402 carries who must sign (rule 3), added by the gate's Express adapter.
    const unpaid = await fetch(`${merchant.url}${paidPath}`, { headers: { 'X-Wallet-Address': payerA.address } });
    expect(unpaid.status).toBe(402);
    expect(await unpaid.json()).toMatchObject({ identity_mode: 'wallet', required_signer: payerA.address.toLowerCase(), linked_wallets: expect.arrayContaining([payerA.address.toLowerCase()]) });
    // The agent's keystore wallet, without the stored token (spec 5.6's last resort).
    const agent = createAgentClient({ credentialStore: store, walletAddress: payerA.address, skipStoredToken: true, fetch: paying(payerA) });
    const res = await agent.fetch(`${merchant.url}${paidPath}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ identity: { status: 'verified', mode: 'wallet', wallet: payerA.address.toLowerCase() } });
    expect(settlementOf(res)).toMatchObject({ success: true, payer: payerA.address });
  });

  it('a payment signed by another operator\'s wallet → 403 wallet_signer_mismatch, and nothing is paid', async () => {
    // Operator B: verified (on the page, over HTTP here) and payer B captured for their token.
    const b = await verifiedLogin(service.url, apiKey);
    const captured = await call(service.url, 'POST', '/v1/credentials/wallets', { key: apiKey, body: { operator_token: b.operatorToken, wallet_address: payerB.address, network: 'evm' } });
    expect(captured.body).toMatchObject({ associated: true });
    const before = await usdc(payerB.address);
    // Claims payer A's wallet, pays with payer B's.
    const res = await paying(payerB)(`${merchant.url}${paidPath}`, { headers: { 'X-Wallet-Address': payerA.address } });
    expect(res.status).toBe(403);
    const { error } = (await res.json()) as { error: any };
    expect(error).toMatchObject({
      code: 'wallet_signer_mismatch',
      expected_signer: payerA.address.toLowerCase(),
      actual_signer: payerB.address.toLowerCase(),
      identity_mode: 'wallet',
      required_signer: payerA.address.toLowerCase(),
      agent_instructions: { action: 'resign_or_switch_to_operator_token' },
    });
    expect(error.claimed_operator).not.toBe(error.actual_signer_operator);
    expect(await usdc(payerB.address)).toBe(before);
  });

  it('a payment whose signer is OFAC-listed (SDN 27307) → 403 wallet_not_trusted, sanctions_flagged', async () => {
    // No key exists for the listed address: this merchant hands the gate that signer as the payment's.
    const res = await fetch(`${listedSignerMerchant.url}${paidPath}`, { headers: { 'X-Operator-Token': operatorToken } });
    expect(res.status).toBe(403);
    const { error } = (await res.json()) as { error: any };
    expect(error).toMatchObject({ code: 'wallet_not_trusted', agent_instructions: { action: 'contact_support' } });
    expect(error.reasons).toContain('sanctions_flagged');
    expect(res.headers.get('payment-required')).toBeNull();
  });

  it('the loop closes: after the next ingest and scoring, the payee\'s reputation shows the payments as verified activity', { timeout: 60_000 }, async () => {
    expect(settled).toHaveLength(2);
    await (await service.jobs.run('ingest', { chain: 'devnet' })).done;
    await (await service.jobs.run('score', {})).done;
    const looked = await call(service.url, 'GET', `/v1/reputation/${defaultPayTo}`, { key: apiKey });
    expect(looked.status).toBe(200);
    const devnetChain = looked.body.chains.find((c: { chain: string }) => c.chain === 'devnet');
    expect(devnetChain.activity).toMatchObject({ total_candidate_transactions: 2, total_verified_transactions: 2, as_verified_payee: 2, as_verified_payer: 0 });
    expect(devnetChain.classification.has_verified_payment_activity).toBe(true);
  });

  it('the service stopped: 503 api_error (fail closed); a fail-open merchant lets the buyer pay, degraded', { timeout: 60_000 }, async () => {
    await service.close();
    serviceStopped = true;
    // An identity the gate has no cached answer for.
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const closed = await fetch(`${merchant.url}${paidPath}`, { headers: { 'X-Wallet-Address': stranger } });
    expect(closed.status).toBe(503);
    const { error } = (await closed.json()) as { error: any };
    expect(error).toMatchObject({ code: 'api_error', infra_reason: 'api_error', agent_instructions: { action: 'retry_with_backoff' } });

    const before = await usdc(payerC.address);
    const open = await paying(payerC)(`${failOpenMerchant.url}${paidPath}`, { headers: { 'X-Wallet-Address': payerC.address } });
    expect(open.status).toBe(200);
    expect(await open.json()).toMatchObject({ identity: { status: 'unverified', mode: 'wallet', degraded: true, infra_reason: 'api_error' } });
    expect(settlementOf(open)).toMatchObject({ success: true, payer: payerC.address });
    expect(await usdc(payerC.address)).toBe(before - PRICE);
  });
});

describe('npm run merchant: its settings', () => {
  it('needs an API key; defaults to the demo\'s service, devnet, token and first listed facilitator', () => {
    expect(() => merchantSettings({})).toThrow(/REPUTATION_API_KEY is required/);
    expect(merchantSettings({ REPUTATION_API_KEY: 'rpk_x' })).toMatchObject({
      serviceUrl: 'http://127.0.0.1:8080',
      rpcUrl: 'http://127.0.0.1:8545',
      token: '0x48b70A58DAfD0D43b11e31fb72c7a39dB30a4716',
      facilitatorUrl: null,
      facilitatorAddress: '0x73b2b8df52fBe7C40fe78DB52E3dFFDd5DB5aD07',
      port: 4021,
      payTo: defaultPayTo,
      price: 10_000n,
      failOpen: false,
    });
  });

  it.each([
    ['REPUTATION_URL', 'ftp://x', /REPUTATION_URL must be an http or https URL/],
    ['MERCHANT_TOKEN', '0x123', /MERCHANT_TOKEN must be a 0x address/],
    ['MERCHANT_PORT', '70000', /MERCHANT_PORT must be a whole number up to 65535/],
    ['MERCHANT_PRICE', '0', /MERCHANT_PRICE must be at least 1/],
    ['MERCHANT_FAIL_OPEN', 'maybe', /MERCHANT_FAIL_OPEN must be true or false/],
  ])('%s=%s is refused with a line naming it', (name, value, message) => {
    expect(() => merchantSettings({ REPUTATION_API_KEY: 'rpk_x', [name]: value })).toThrow(message);
  });
});
