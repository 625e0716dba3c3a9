// The gate in front of real frameworks over real HTTP (Koa, Express 5, the Fetch API behind a Node
// http server), against the real service: denials answered as JSON, the pass handed to the
// handler, x402 payment headers read (built with the x402 packages themselves), wallet capture
// after a 2xx only and never holding the answer, per-product enforcement and shipping rules.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Koa from 'koa';
import express from 'express';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import {
  createGate,
  enforce,
  identityOf,
  isDenial,
  x402PaymentSigner,
  type AdapterOptions,
  type Gate,
  type GateDenial,
  type GateOptions,
  type GatePass,
  type Policy,
} from 'wallet-reputation/gate';
import { call } from './helpers/identity.ts';
import { captureWallet, countingFetch, freshWallet, gateService, operatorLogin, serveFetchHandler, silentServer, stoppedServiceUrl } from './helpers/gate.ts';

const policy: Policy = { require_kyc: true, require_sanctions_clear: true, min_age: 21, allowed_jurisdictions: ['US'] };
const usdcBaseSepolia = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const payTo = '0x1111111111111111111111111111111111111111';

/** A real x402 payment header (v2 PAYMENT-SIGNATURE or v1 X-PAYMENT) signed by `account`, as @x402/fetch would send it. */
async function x402Header(account: PrivateKeyAccount, version: 1 | 2 = 2): Promise<Record<string, string>> {
  const client = new x402HTTPClient(registerExactEvmScheme(new x402Client(), { signer: account }));
  const extra = { name: 'USDC', version: '2' };
  const required =
    version === 2
      ? { x402Version: 2, resource: { url: 'http://shop.test/report', description: 'a report', mimeType: 'application/json' }, accepts: [{ scheme: 'exact', network: 'eip155:84532', asset: usdcBaseSepolia, amount: '10000', payTo, maxTimeoutSeconds: 60, extra }] }
      : { x402Version: 1, error: 'payment required', accepts: [{ scheme: 'exact', network: 'base-sepolia', maxAmountRequired: '10000', resource: 'http://shop.test/report', description: 'a report', mimeType: 'application/json', payTo, maxTimeoutSeconds: 60, asset: usdcBaseSepolia, extra }] };
  return client.encodePaymentSignatureHeader(await client.createPaymentPayload(required as never));
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

type Kind = 'koa' | 'express' | 'fetch';

/**
 * A merchant on `kind` with the gate in front of one handler, which answers `?status=` (default
 * 200) with the pass it was given, read the framework's way. `handled` counts the handler's runs.
 */
async function merchant(kind: Kind, gate: Gate, options: AdapterOptions<any> = {}): Promise<{ url: string; handled: () => number }> {
  let handled = 0;
  const statusOf = (url: string) => Number(new URL(url, 'http://x').searchParams.get('status') ?? 200);
  if (kind === 'koa') {
    const app = new Koa();
    app.use(gate.koa(options));
    app.use((ctx) => {
      handled++;
      ctx.status = statusOf(ctx.url);
      ctx.body = { identity: ctx.state.identity };
    });
    return { url: await listen(http.createServer(app.callback())), handled: () => handled };
  }
  if (kind === 'express') {
    const app = express();
    app.use(gate.express(options));
    app.use((req, res) => {
      handled++;
      res.status(statusOf(req.url)).json({ identity: res.locals.identity });
    });
    return { url: await listen(http.createServer(app)), handled: () => handled };
  }
  const handler = gate.fetch(async (request: Request) => {
    handled++;
    return new Response(JSON.stringify({ identity: identityOf(request) }), { status: statusOf(request.url), headers: { 'content-type': 'application/json' } });
  }, options);
  return { url: await serveFetchHandler(handler), handled: () => handled };
}

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any; ms: number }> {
  const started = Date.now();
  const res = await fetch(url, { headers });
  const body = await res.json();
  return { status: res.status, headers: res.headers, body, ms: Date.now() - started };
}

describe('the gate in front of Koa, Express and the Fetch API', () => {
  const service = gateService('gate-adapters');
  let token: string;
  beforeAll(async () => {
    token = await operatorLogin(service);
  });
  const gateFor = (options: Partial<GateOptions> = {}) => {
    const counter = countingFetch();
    return { gate: createGate({ serviceUrl: service.url, apiKey: service.keys.pro, policy, fetch: counter.fetch, ...options }), counter };
  };
  /** What the service knows of a wallet now: its operator's kyc_status (verified once captured under a verified token). */
  const kycOf = async (wallet: string) => (await call(service.url, 'POST', '/v1/assess', { key: service.keys.pro, body: { address: wallet } })).body.operator_verification.kyc_status;

  describe.each<Kind>(['koa', 'express', 'fetch'])('%s', (kind) => {
    it('answers a denial as JSON without running the handler; a pass reaches it', async () => {
      const shop = await merchant(kind, gateFor().gate);
      const denied = await get(`${shop.url}/report`);
      expect(denied.status).toBe(403);
      expect(denied.headers.get('content-type')).toMatch(/^application\/json/);
      expect(denied.headers.get('cache-control')).toBe('no-store');
      expect(denied.body.error).toMatchObject({ code: 'identity_verification_required', session_id: expect.stringMatching(/^sess_/), agent_instructions: { action: 'deliver_verify_url_and_poll' } });
      expect(shop.handled()).toBe(0);
      const ok = await get(`${shop.url}/report`, { 'X-Operator-Token': token });
      expect(ok.status).toBe(200);
      expect(ok.body.identity).toMatchObject({ identityStatus: 'verified', identityMode: 'operator_token', assessment: { decision: 'allow' } });
      expect(shop.handled()).toBe(1);
      // A 503 carries its Retry-After through the framework.
      const down = await merchant(kind, gateFor({ serviceUrl: await stoppedServiceUrl() }).gate);
      const unavailable = await get(`${down.url}/report`, { 'X-Operator-Token': token });
      expect([unavailable.status, unavailable.body.error.code, unavailable.headers.get('retry-after')]).toEqual([503, 'api_error', '5']);
    });

    it('reads the x402 payment header: the signer goes to assess, and after a 2xx is captured for the operator token', async () => {
      const { gate, counter } = gateFor();
      const shop = await merchant(kind, gate);
      const payer = privateKeyToAccount(generatePrivateKey());
      const wallet = payer.address.toLowerCase();
      expect(await kycOf(wallet)).toBe('none');
      const ok = await get(`${shop.url}/report`, { 'X-Operator-Token': token, ...(await x402Header(payer)) });
      expect(ok.status).toBe(200);
      expect(counter.calls.find((c) => c.path === '/v1/assess')!.body.signer).toEqual({ address: wallet, network: 'evm' });
      await expect.poll(() => kycOf(wallet), { timeout: 5_000 }).toBe('verified');
      const capture = counter.calls.find((c) => c.path === '/v1/credentials/wallets')!;
      expect(capture.body).toMatchObject({ operator_token: token, wallet_address: wallet, network: 'evm', idempotency_key: expect.stringMatching(/^x402:0x[0-9a-f]{64}$/) });
      // The captured wallet now identifies the same person, signing its own payment.
      const asWallet = await get(`${shop.url}/report`, { 'X-Wallet-Address': payer.address, ...(await x402Header(payer)) });
      expect(asWallet.status).toBe(200);
      expect(asWallet.body.identity).toMatchObject({ identityStatus: 'verified', identityMode: 'wallet', walletAddress: wallet });
      // Capture is for operator tokens: a wallet that paid as itself is not captured again.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(counter.count('/v1/credentials/wallets')).toBe(1);
    });

    it('a 402 the handler answers after a wallet-mode pass carries rule 3\'s fields at the top of its JSON body', async () => {
      const wallet = freshWallet();
      await captureWallet(service, token, wallet);
      const shop = await merchant(kind, gateFor().gate);
      const lower = wallet.toLowerCase();
      const unpaid = await get(`${shop.url}/report?status=402`, { 'X-Wallet-Address': wallet });
      expect(unpaid.status).toBe(402);
      expect(unpaid.body).toMatchObject({
        identity_mode: 'wallet',
        required_signer: lower,
        // The token's person: every wallet captured for it so far, this one among them.
        linked_wallets: expect.arrayContaining([lower]),
        signer_constraint: expect.stringContaining(lower),
        identity: { identityStatus: 'verified', identityMode: 'wallet', signerChecked: false },
      });
      // Any other status is the handler's answer as it is.
      const ok = await get(`${shop.url}/report`, { 'X-Wallet-Address': wallet });
      expect([ok.status, ok.body.required_signer]).toEqual([200, undefined]);
    });

    it('captures nothing after a non-2xx answer, or with captureAfter false', async () => {
      const { gate, counter } = gateFor();
      const shop = await merchant(kind, gate);
      const payer = privateKeyToAccount(generatePrivateKey());
      expect((await get(`${shop.url}/report?status=500`, { 'X-Operator-Token': token, ...(await x402Header(payer)) })).status).toBe(500);
      const quiet = gateFor();
      const noCapture = await merchant(kind, quiet.gate, { captureAfter: false });
      expect((await get(`${noCapture.url}/report`, { 'X-Operator-Token': token, ...(await x402Header(payer)) })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(counter.count('/v1/credentials/wallets') + quiet.counter.count('/v1/credentials/wallets')).toBe(0);
      expect(await kycOf(payer.address)).toBe('none');
    });

    it('a capture that hangs (or cannot connect) never delays or fails the merchant\'s answer', async () => {
      const silent = await silentServer();
      const stopped = await stoppedServiceUrl();
      for (const target of [silent.url, stopped]) {
        const problems: string[] = [];
        const { gate } = gateFor({
          fetch: countingFetch((url) => (url.pathname === '/v1/credentials/wallets' ? `${target}${url.pathname}` : undefined)).fetch,
          captureTimeoutMs: 20_000,
          onServiceProblem: (p) => problems.push(`${p.call}: ${p.detail}`),
        });
        const shop = await merchant(kind, gate);
        const answer = await get(`${shop.url}/report`, { 'X-Operator-Token': token, ...(await x402Header(privateKeyToAccount(generatePrivateKey()))) });
        expect(answer.status).toBe(200);
        expect(answer.body.identity.identityStatus).toBe('verified');
        // Far below the capture's 20 s budget: the answer did not wait for it.
        expect(answer.ms).toBeLessThan(3_000);
        if (target === stopped) await expect.poll(() => problems.length).toBe(1);
      }
      await expect.poll(() => silent.hits).toEqual(['POST /v1/credentials/wallets']);
    });

    it('per-product enforcement: soft lets a denied buyer through as unverified, absent asks nothing (anonymous), shipping rules hold in every mode', async () => {
      const soft = gateFor();
      const softShop = await merchant(kind, soft.gate, { product: { enforcement: 'soft' } });
      const unverified = await get(`${softShop.url}/report`);
      expect(unverified.status).toBe(200);
      expect(unverified.body.identity).toMatchObject({ identityStatus: 'unverified', identityMode: 'none', denial: { status: 403, body: { error: { code: 'identity_verification_required' } } } });

      const open = gateFor();
      const shipping = (request: { headers: unknown }) => {
        const headers = request.headers as Headers | Record<string, string>;
        const country = headers instanceof Headers ? headers.get('x-ship-country') : headers['x-ship-country'];
        return country ? { country } : undefined;
      };
      const openShop = await merchant(kind, open.gate, { product: { shippingCountries: ['US', 'CA'] }, shipping });
      const anonymous = await get(`${openShop.url}/report`, { 'X-Ship-Country': 'ca' });
      expect([anonymous.status, anonymous.body.identity]).toEqual([200, { identityStatus: 'anonymous', identityMode: 'none', signerChecked: false }]);
      const abroad = await get(`${openShop.url}/report`, { 'X-Ship-Country': 'DE', 'X-Operator-Token': token });
      expect([abroad.status, abroad.body.error.code, abroad.body.error.reasons, abroad.body.error.agent_instructions.action]).toEqual([403, 'compliance_denied', ['shipping_country_restricted'], 'contact_support']);
      expect(open.counter.calls).toEqual([]);
    });
  });

  describe('enforce() on real verdicts (rule 5)', () => {
    let pass: GatePass;
    let denial: GateDenial;
    beforeAll(async () => {
      const { gate } = gateFor();
      pass = (await gate.evaluate({ headers: { 'X-Operator-Token': token } })) as GatePass;
      denial = (await gate.evaluate({ headers: { 'X-Wallet-Address': freshWallet() } })) as GateDenial;
      expect([isDenial(pass), isDenial(denial)]).toEqual([false, true]);
    });

    it('hard: a denial stands, a pass is verified (a degraded one unverified)', () => {
      expect(enforce({ enforcement: 'hard' }, denial)).toBe(denial);
      expect(enforce({ enforcement: 'hard' }, pass)).toMatchObject({ identityStatus: 'verified', operatorToken: token });
      expect(enforce({ enforcement: 'hard' }, { identityStatus: 'unverified', identityMode: 'operator_token', signerChecked: false, degraded: true, infraReason: 'api_error' })).toMatchObject({ identityStatus: 'unverified', degraded: true });
    });

    it('soft: a denial becomes an unverified pass carrying it; a pass stays verified', () => {
      expect(enforce({ enforcement: 'soft' }, denial)).toEqual({ identityStatus: 'unverified', identityMode: 'none', signerChecked: false, denial });
      expect(enforce({ enforcement: 'soft' }, pass)).toMatchObject({ identityStatus: 'verified' });
    });

    it('absent: anonymous whatever the verdict', () => {
      expect(enforce({}, denial)).toEqual({ identityStatus: 'anonymous', identityMode: 'none', signerChecked: false });
      expect(enforce({}, pass)).toMatchObject({ identityStatus: 'anonymous', identityMode: 'operator_token' });
    });

    it('shipping: the country allowlist in every mode, the state allowlist for US shipments only, none given is refused', () => {
      const product = { shippingCountries: ['US', 'CA'], shippingStates: ['CA', 'US-NY'] };
      for (const enforcement of [undefined, 'soft', 'hard'] as const) {
        const refused = enforce({ ...product, enforcement }, pass, { country: 'DE' }) as GateDenial;
        expect([refused.status, refused.body.error.code, refused.body.error.reasons]).toEqual([403, 'compliance_denied', ['shipping_country_restricted']]);
      }
      expect((enforce(product, pass, { country: 'US', state: 'TX' }) as GateDenial).body.error.reasons).toEqual(['shipping_state_restricted']);
      expect((enforce(product, pass, { country: 'US' }) as GateDenial).body.error.reasons).toEqual(['shipping_state_restricted']);
      expect(isDenial(enforce(product, pass, { country: 'us', state: 'us-ca' }))).toBe(false);
      expect(isDenial(enforce(product, pass, { country: 'US', state: 'ny' }))).toBe(false);
      // Canada has provinces, not US states: the state list does not apply.
      expect(isDenial(enforce(product, pass, { country: 'CA', state: 'QC' }))).toBe(false);
      expect((enforce(product, pass) as GateDenial).body.error.reasons).toEqual(['shipping_country_restricted']);
      // A shipping refusal wins over a soft pass-through.
      expect(isDenial(enforce({ ...product, enforcement: 'soft' }, denial, { country: 'FR' }))).toBe(true);
    });
  });

  describe('x402PaymentSigner', () => {
    it('reads the EIP-3009 from of x402 v2 (PAYMENT-SIGNATURE) and v1 (X-PAYMENT), lowercased, with the nonce as idempotency key', async () => {
      const payer = privateKeyToAccount(generatePrivateKey());
      for (const version of [2, 1] as const) {
        const header = await x402Header(payer, version);
        expect(Object.keys(header)).toEqual([version === 2 ? 'PAYMENT-SIGNATURE' : 'X-PAYMENT']);
        const payment = x402PaymentSigner({ headers: new Headers(header) });
        expect(payment).toEqual({ signer: payer.address.toLowerCase(), network: 'evm', idempotencyKey: expect.stringMatching(/^x402:0x[0-9a-f]{64}$/) });
        // Node's header record (lowercased names) reads the same.
        expect(x402PaymentSigner({ headers: Object.fromEntries(Object.entries(header).map(([k, v]) => [k.toLowerCase(), v])) })).toEqual(payment);
      }
    });

    it('none without a payment header, for a header that is not base64 JSON, and for a Solana payment it cannot read', () => {
      expect(x402PaymentSigner({ headers: {} })).toBeUndefined();
      expect(x402PaymentSigner({ headers: { 'x-payment': 'not base64 json!' } })).toBeUndefined();
      const solana = btoa(JSON.stringify({ x402Version: 2, accepted: { network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' }, payload: { transaction: 'AQAB' } }));
      expect(x402PaymentSigner({ headers: { 'payment-signature': solana } })).toBeUndefined();
    });
  });
});
