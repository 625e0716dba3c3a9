// The buyer-agent client (gate/agent, `reputation agent …`) over real HTTP: a real service
// (sandbox KYC, the tiny SDN list for name and address screening) and a merchant with the real
// gate (gate/) in front of Koa routes. Spec 5.6's header order, a whole verification through the
// sandbox page, the credential store (0600, atomic, refused when others may read it, no poll
// secret), refresh tokens, the 503 backoff, contact_support, invalid_credential, the signer
// checks, and the CLI as a user runs it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Koa from 'koa';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader } from '@x402/core/http';
import { createGate, type Gate } from 'wallet-reputation/gate';
import { AgentError, createAgentClient, CredentialStoreError, openCredentialStore, type AgentClientOptions, type StoredCredential } from 'wallet-reputation/gate/agent';
import { continuePolling, retryWithOperatorToken } from '../identity/guidance.ts';
import { tempDataDir } from './helpers/temp.ts';
import { freePort } from './helpers/free-port.ts';
import { cliEnv, runCli, spawnCli, spawnCliOnTerminal } from './helpers/cli.ts';
import { clearPerson, poll, sdnTinyCsv, submitSandbox, verifiedLogin, type SandboxFields } from './helpers/identity.ts';

const hour = 3_600_000;
// Entry 29702 of the tiny SDN list: a payment signed by it is denied whoever presents it.
const listedSigner = '0xa7e5d5a720f06526557c513402f2e6b5fa20b008';
const flaggedPerson: SandboxFields = { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'Daniel Moreno' };
const freshWallet = () => privateKeyToAccount(generatePrivateKey()).address;
/** x402 v2 payment requirements: 0.01 USDC (Base Sepolia's contract) to a fixed payee. */
const paymentRequired = (url: string) => ({
  x402Version: 2,
  resource: { url, description: 'a premium weather report', mimeType: 'application/json' },
  accepts: [{ scheme: 'exact', network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: '10000', payTo: '0x1111111111111111111111111111111111111111', maxTimeoutSeconds: 60, extra: { name: 'USDC', version: '2' } }],
});

interface Seen {
  path: string;
  token: string | null;
  wallet: string | null;
  paid?: true;
}

describe('buyer-agent client', () => {
  const dataDir = tempDataDir('agent-service');
  const home = tempDataDir('agent-home');
  let server: RunningServer;
  // The service's clock starts at this machine's (the CLI's client reads the real one) and tests move it on.
  let clock = Math.floor(Date.now() / 1000) * 1000;
  let merchantKey: string;
  let merchant: string;
  let seen: Seen[] = [];
  let flakyFailures = 0;
  let storeCount = 0;
  let logins = 0;
  const newStore = () => path.join(home, `agent-${++storeCount}`, 'credentials.json');
  const seenAt = (route: string) => seen.filter((s) => s.path === route).map(({ path: _, ...rest }) => rest);

  beforeAll(async () => {
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', SANCTIONS_LIST_SOURCE: sdnTinyCsv, SUPPORT_EMAIL: 'review@example.org', TRUST_PROXY_HOPS: '1' });
    server = await startServer(config, silentLogger, { now: () => new Date(clock) });
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    merchantKey = (await createAccount(server.store, { plan: 'enterprise', name: 'Agent Test Merchant' }, server.keys)).api_key;

    const deadService = `http://127.0.0.1:${await freePort()}`;
    const gates: Record<string, Gate> = {
      // KYC required; the payment's signer comes from the test's X-Test-Signer header ("none": a rail without one).
      '/paid': createGate({ serviceUrl: server.url, apiKey: merchantKey, policy: { require_kyc: true }, cacheTtlSeconds: 0 }),
      // Any identity the service knows passes (no policy).
      '/open': createGate({ serviceUrl: server.url, apiKey: merchantKey, cacheTtlSeconds: 0 }),
      // No auto-session: missing_identity.
      '/strict': createGate({ serviceUrl: server.url, apiKey: merchantKey, autoSession: false, cacheTtlSeconds: 0 }),
      // The service unreachable: 503 api_error, retry_with_backoff.
      '/down': createGate({ serviceUrl: deadService, apiKey: merchantKey, cacheTtlSeconds: 0, timeoutMs: 1000 }),
      // The service refusing the merchant's key: 503 api_error, contact_merchant.
      '/misconfigured': createGate({ serviceUrl: server.url, apiKey: 'rpk_notakeyofthisservice', cacheTtlSeconds: 0 }),
    };
    // /shop: the gate in front (the payment's signer read from the x402 header, its default), then a
    // paid endpoint speaking x402 v2: 402 with PAYMENT-REQUIRED until a PAYMENT-SIGNATURE comes. (No
    // facilitator settles it here: test/x402-devnet.test.ts and the example merchant do that.)
    const shopGate = createGate({ serviceUrl: server.url, apiKey: merchantKey, policy: { require_kyc: true }, cacheTtlSeconds: 0 }).koa({ captureAfter: false });
    const shop: Koa.Middleware = async (ctx) => {
      const payment = ctx.get('payment-signature');
      if (!payment) {
        ctx.status = 402;
        ctx.set('PAYMENT-REQUIRED', encodePaymentRequiredHeader(paymentRequired(`${merchant}/shop`) as never));
        ctx.body = {};
        return;
      }
      const payload = decodePaymentSignatureHeader(payment) as unknown as { payload: { authorization: { from: string } } };
      ctx.body = { report: 'premium weather', paid_by: payload.payload.authorization.from.toLowerCase(), identity_mode: (ctx.state.identity as { identityMode: string }).identityMode };
    };
    /** A session denial as a merchant could write one, with the addresses given; session `sess_<id>`, poll secret `pls_<id id id>`. */
    const sessionDenial = (code: string, message: string, verifyUrl: unknown, pollUrl: unknown, id: string) => ({
      error: {
        code,
        message,
        agent_instructions: { action: 'deliver_verify_url_and_poll', steps: [], user_message: '' },
        verify_url: verifyUrl,
        poll_url: pollUrl,
        poll_secret: `pls_${id.repeat(3)}`,
        session_id: `sess_${id}`,
      },
    });
    const app = new Koa();
    app.use(async (ctx, next) => {
      seen.push({ path: ctx.path, token: ctx.get('x-operator-token') || null, wallet: ctx.get('x-wallet-address') || null, ...(ctx.get('payment-signature') ? { paid: true as const } : {}) });
      await next();
    });
    app.use(async (ctx) => {
      if (ctx.path === '/shop') return shopGate(ctx as never, () => shop(ctx as never, async () => {}));
      // /forged: a session denial with the addresses the test gives (?verify=, ?poll=), as a hostile
      // merchant could write one; with an operator token, the report (the token taken as good).
      if (ctx.path === '/forged' && ctx.get('x-operator-token')) {
        ctx.body = { report: 'premium weather', identity_mode: 'operator_token', wallet: null };
        return;
      }
      if (ctx.path === '/forged') {
        ctx.status = 403;
        ctx.body = sessionDenial('identity_verification_required', 'verify at verify_url', ctx.query.verify, ctx.query.poll, 'forged');
        return;
      }
      // /every-time: token_expired, each time with a session on another identity service (?service=
      // with /s1, /s2, … by the count of this test's requests): a merchant that never lets one through.
      if (ctx.path === '/every-time') {
        const base = `${ctx.query.service}/s${seen.filter((s) => s.path === '/every-time').length}`;
        ctx.status = 401;
        ctx.body = sessionDenial('token_expired', 'the operator token expired', `${base}/verify/sess_again`, `${base}/v1/sessions/sess_again`, 'again');
        return;
      }
      // /expired: an operator token is answered token_expired without a session (a gate that could
      // not mint one); without a token, the open gate.
      if (ctx.path === '/expired' && ctx.get('x-operator-token')) {
        ctx.status = 401;
        ctx.body = { error: { code: 'token_expired', message: 'the operator token expired', agent_instructions: { action: 'switch_token_or_restart_session', steps: [], user_message: '' } } };
        return;
      }
      // /flaky: the dead service for the first flakyFailures requests, then the open gate.
      const gate = ctx.path === '/flaky' ? gates[flakyFailures-- > 0 ? '/down' : '/open'] : gates[ctx.path === '/expired' ? '/open' : ctx.path];
      if (!gate) {
        ctx.status = 404;
        return;
      }
      const middleware = gate.koa({
        captureAfter: false,
        payment: (c: Koa.Context) => {
          const signer = c.get('x-test-signer');
          return signer ? { signer: signer === 'none' ? null : signer, network: 'evm' as const } : undefined;
        },
      });
      await middleware(ctx as never, async () => {
        const identity = ctx.state.identity as { identityMode: string; operatorToken?: string; walletAddress?: string };
        ctx.body = { report: 'premium weather', identity_mode: identity.identityMode, wallet: identity.walletAddress ?? null };
      });
    });
    const httpServer = http.createServer(app.callback());
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    merchant = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
    afterAll(async () => {
      httpServer.closeAllConnections();
      await new Promise((resolve) => httpServer.close(resolve));
    });
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    clock += 1_000;
    seen = [];
  });

  /**
   * A client whose sleeps are recorded and return at once; the first sleep after a verify URL was
   * shown completes the sandbox page as `person` (or runs `onPage` with the URL), so the poll before
   * it saw pending.
   */
  function agent(credentialStore: string, options: Partial<AgentClientOptions> & { person?: SandboxFields; onPage?: (verifyUrl: string) => Promise<void> } = {}) {
    const shown: { url: string; qr: string }[] = [];
    const lines: string[] = [];
    const slept: number[] = [];
    const answers: string[] = [];
    let toComplete: string | null = null;
    const { person, onPage, ...rest } = options;
    const visit = onPage ?? (person ? async (url: string) => expect((await submitSandbox(url, person)).status).toBe(303) : null);
    const client = createAgentClient({
      credentialStore,
      onVerifyUrl: (url, qr) => {
        shown.push({ url, qr });
        toComplete = url;
      },
      onProgress: (line) => lines.push(line),
      // The agent's clock is the service's.
      now: () => new Date(clock),
      sleep: async (ms) => {
        slept.push(ms);
        // A client that polls on and on is a failure here, not a hang.
        if (slept.length > 20) throw new Error(`the client waited ${slept.length} times: ${lines.at(-1)}`);
        if (toComplete !== null && visit) {
          const url = toComplete;
          toComplete = null;
          await visit(url);
        }
      },
      // Every answer that is not a 200, as the client received it (the denials with their poll secrets).
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (res.status !== 200) answers.push(await res.clone().text());
        return res;
      },
      ...rest,
    });
    return { client, shown, lines, slept, answers };
  }

  /** A verified login of a new person, as the agent would have stored it. */
  async function login(): Promise<StoredCredential & { refreshToken: string }> {
    clock += 1_000;
    // Polled from an address of its own: the client's polls keep the per-address limit to themselves.
    const { operatorToken, refreshToken } = await verifiedLogin(server.url, merchantKey, clearPerson, { 'X-Forwarded-For': `192.0.2.${++logins}` });
    return {
      service: server.url,
      operatorToken,
      operatorTokenExpiresAt: new Date(clock + 24 * hour).toISOString(),
      refreshToken,
      refreshTokenExpiresAt: new Date(clock + 90 * 24 * hour).toISOString(),
      updatedAt: new Date(clock).toISOString(),
    };
  }

  async function storeWith(credential: StoredCredential): Promise<string> {
    const file = newStore();
    await openCredentialStore(file).put(credential);
    return file;
  }

  /** The client showed one verify URL, saw pending once, then stopped: no further poll, no retry of /paid, no store written. */
  function expectStoppedAfterOnePoll(a: ReturnType<typeof agent>, store: string): void {
    expect(a.shown).toHaveLength(1);
    expect(a.slept).toEqual([5_000]);
    expect(seenAt('/paid')).toHaveLength(1);
    expect(existsSync(store)).toBe(false);
  }

  async function agentError(promise: Promise<unknown>): Promise<AgentError> {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AgentError);
    return err as AgentError;
  }

  describe('a whole verification', () => {
    it('shows the verify URL with a QR code, polls while pending, stores the token, retries with X-Operator-Token and gets 200', async () => {
      const store = newStore();
      const a = agent(store, { person: clearPerson });
      const res = await a.client.fetch(`${merchant}/paid`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ report: 'premium weather', identity_mode: 'operator_token', wallet: null });

      expect(a.shown).toHaveLength(1);
      expect(a.shown[0]!.url).toMatch(new RegExp(`^${server.url}/verify/sess_`));
      // A terminal QR code: rows of half-block characters.
      expect(a.shown[0]!.qr.split('\n').length).toBeGreaterThan(10);
      expect(a.shown[0]!.qr).toMatch(/[█▀▄]/);
      // One poll saw pending (a progress line, one wait of the 5 s interval), the next the token.
      expect(a.slept).toEqual([5_000]);
      expect(a.lines.some((l) => /waiting for identity verification \(pending/.test(l))).toBe(true);

      const sent = seenAt('/paid');
      expect(sent).toHaveLength(2);
      expect(sent[0]).toEqual({ token: null, wallet: null });
      expect(sent[1]!.token).toMatch(/^opc_[A-Za-z0-9]{32}$/);

      // The store: 0600 in a 0700 folder, the token and refresh token with their expiries, and
      // nothing of the session (no poll secret) or of the agent_memory block.
      expect(statSync(store).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(store)).mode & 0o777).toBe(0o700);
      const text = readFileSync(store, 'utf8');
      const file = JSON.parse(text);
      expect(file.services[server.url]).toEqual({
        operator_token: sent[1]!.token,
        operator_token_expires_at: new Date(clock + 24 * hour).toISOString(),
        refresh_token: expect.stringMatching(/^prt_[A-Za-z0-9]{32}$/),
        refresh_token_expires_at: new Date(clock + 90 * 24 * hour).toISOString(),
        updated_at: expect.any(String),
      });
      expect(file.merchants).toEqual({ [merchant]: server.url });
      const denial = JSON.parse(a.answers[0]!);
      expect(denial.error.code).toBe('identity_verification_required');
      expect(denial.error.poll_secret).toMatch(/^pls_/);
      expect(text).not.toContain(denial.error.poll_secret);
      expect(text).not.toMatch(/poll_secret|pattern_summary|identity_check_endpoint|do_not_persist/);

      // The next request of another client on the same store sends the stored token at once.
      seen = [];
      const again = agent(store);
      expect((await again.client.fetch(`${merchant}/paid`)).status).toBe(200);
      expect(seenAt('/paid')).toEqual([{ token: sent[1]!.token, wallet: null }]);
      expect(again.shown).toEqual([]);
    });

    it('a POST body and the caller\'s other headers go again, unchanged, with the retry', async () => {
      const bodies: string[] = [];
      const a = agent(newStore(), {
        person: clearPerson,
        fetch: async (input, init) => {
          if (String(input).startsWith(merchant)) bodies.push(`${init?.method} ${new Headers(init?.headers).get('x-order')} ${new TextDecoder().decode(init?.body as Uint8Array)}`);
          return fetch(input, init);
        },
      });
      const res = await a.client.fetch(`${merchant}/paid`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Order': 'o-17' }, body: '{"city":"Oslo"}' });
      expect(res.status).toBe(200);
      expect(bodies).toEqual(['POST o-17 {"city":"Oslo"}', 'POST o-17 {"city":"Oslo"}']);
    });

    it('flagged (a listed name on the page): stops with contact_support, the support address and subject, and stores nothing', async () => {
      const store = newStore();
      const a = agent(store, { person: flaggedPerson });
      const err = await agentError(a.client.fetch(`${merchant}/paid`));
      expect(err.code).toBe('contact_support');
      expect(err.supportEmail).toBe('review@example.org');
      const sessionId = /\/verify\/(sess_[^/]+)$/.exec(a.shown[0]!.url)![1];
      expect(err.supportSubject).toBe(`Identity review for verification session ${sessionId}`);
      expect(err.userMessage).toMatch(/manual review/);
      // It stopped: no further polls, no retry of the merchant request.
      expect(a.slept).toEqual([5_000]);
      expect(seenAt('/paid')).toHaveLength(1);
      expect(existsSync(store)).toBe(false);
    });

    it('failed with retry_until keeps polling; the person succeeds on the second attempt', async () => {
      const store = newStore();
      let attempt = 0;
      let url: string | null = null;
      const lines: string[] = [];
      const client = createAgentClient({
        credentialStore: store,
        onVerifyUrl: (u) => (url = u),
        onProgress: (l) => lines.push(l),
        sleep: async () => {
          attempt += 1;
          if (attempt === 1) await submitSandbox(url!, { outcome: 'failed' });
          if (attempt === 2) await submitSandbox(url!, clearPerson);
        },
      });
      expect((await client.fetch(`${merchant}/paid`)).status).toBe(200);
      expect(lines.some((l) => /did not succeed; the page takes another attempt until/.test(l))).toBe(true);
      expect(attempt).toBe(2);
    });

    it('failed without retry_until (the third attempt failed): stops with verification_failed, no more polls, no retry, nothing stored', async () => {
      const store = newStore();
      const a = agent(store, {
        onPage: async (url) => {
          for (let i = 0; i < 3; i++) expect((await submitSandbox(url, { outcome: 'failed' })).status).toBe(303);
        },
      });
      const err = await agentError(a.client.fetch(`${merchant}/paid`));
      expect([err.code, err.message]).toEqual(['verification_failed', 'identity verification failed and takes no more attempts; retry the request to start a new one']);
      expect(err.details).toMatchObject({ status: 'failed', next_steps: { action: 'verification_failed' } });
      expect(err.details!.next_steps).not.toHaveProperty('retry_until');
      expect(err.userMessage).toMatch(/did not succeed\. Retry the merchant request/);
      expectStoppedAfterOnePoll(a, store);
    });

    it('consumed (another poll took the token): stops with token_consumed, stores nothing and does not retry the request', async () => {
      const store = newStore();
      const a = agent(store, {
        onPage: async (url) => {
          expect((await submitSandbox(url, clearPerson)).status).toBe(303);
          // Someone else with the poll secret polls first and takes the token.
          const { error } = JSON.parse(a.answers[0]!);
          expect((await poll(error.poll_url, error.poll_secret, { 'X-Forwarded-For': `192.0.2.${++logins}` })).body.status).toBe('verified');
        },
      });
      const err = await agentError(a.client.fetch(`${merchant}/paid`));
      expect(err.code).toBe('token_consumed');
      expect(err.message).toMatch(/already delivered to another poll; it is not in this credential store/);
      expect(err.details).toMatchObject({ status: 'consumed', next_steps: { action: 'use_stored_operator_token' } });
      expect(err.userMessage).toMatch(/already delivered/);
      expectStoppedAfterOnePoll(a, store);
    });
  });

  describe('with a paying fetch inside (x402)', () => {
    it('the identity client outside @x402/fetch: 403 → verify → retry → 402 → paid by the wrapper → 200', async () => {
      const payer = privateKeyToAccount(generatePrivateKey());
      const paying = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: payer }));
      const a = agent(newStore(), { person: clearPerson, fetch: paying });
      const res = await a.client.fetch(`${merchant}/shop`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ report: 'premium weather', paid_by: payer.address.toLowerCase(), identity_mode: 'operator_token' });
      const [login] = await a.client.store.list();
      // Unpaid and anonymous; with the new token, still unpaid (the merchant's 402); the wrapper's paid retry with the token.
      expect(seenAt('/shop')).toEqual([
        { token: null, wallet: null },
        { token: login!.operatorToken, wallet: null },
        { token: login!.operatorToken, wallet: null, paid: true },
      ]);
      expect(a.shown).toHaveLength(1);
    });
  });

  describe('the identity header (spec 5.6)', () => {
    it('a header the caller passed wins, then the stored token, then the keystore wallet; --no-stored-token skips the token', async () => {
      const stored = await login();
      const store = await storeWith(stored);
      const keystore = freshWallet(); // mixed case: sent lowercased
      const callerWallet = freshWallet().toLowerCase();
      const other = await login();

      expect((await agent(store, { walletAddress: keystore }).client.fetch(`${merchant}/open`, { headers: { 'X-Wallet-Address': callerWallet } })).status).toBe(200);
      expect((await agent(store, { walletAddress: keystore }).client.fetch(`${merchant}/open`, { headers: { 'X-Operator-Token': other.operatorToken } })).status).toBe(200);
      expect((await agent(store, { walletAddress: keystore }).client.fetch(`${merchant}/open`)).status).toBe(200);
      expect((await agent(store, { walletAddress: keystore, skipStoredToken: true }).client.fetch(`${merchant}/open`)).status).toBe(200);
      expect((await agent(newStore(), { walletAddress: keystore }).client.fetch(`${merchant}/open`)).status).toBe(200);
      expect(seenAt('/open')).toEqual([
        { token: null, wallet: callerWallet },
        { token: other.operatorToken, wallet: null },
        { token: stored.operatorToken, wallet: null },
        { token: null, wallet: keystore.toLowerCase() },
        { token: null, wallet: keystore.toLowerCase() },
      ]);
    });

    it('without any identity and a gate without auto-sessions: missing_identity, naming the identity service', async () => {
      const a = agent(newStore());
      const err = await agentError(a.client.fetch(`${merchant}/strict`));
      expect(err.code).toBe('missing_identity');
      expect(err.message).toContain(server.url);
      expect(seenAt('/strict')).toEqual([{ token: null, wallet: null }]);
    });
  });

  describe('the credential store', () => {
    it('is created 0600 whatever the umask, and rewritten by rename: a reader never sees half a file, no temp file stays', async () => {
      const file = newStore();
      const store = openCredentialStore(file);
      const old = process.umask(0);
      try {
        await store.put({ service: server.url, operatorToken: 'opc_first', operatorTokenExpiresAt: null, refreshToken: null, refreshTokenExpiresAt: null, updatedAt: new Date().toISOString() });
      } finally {
        process.umask(old);
      }
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // The first file stays open: rewritten in place, this descriptor would read the new contents.
      const first = openSync(file, 'r');
      const firstContents = readFileSync(file, 'utf8');
      let reads = 0;
      let writing = true;
      const reader = (async () => {
        while (writing) {
          JSON.parse(readFileSync(file, 'utf8'));
          reads += 1;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      for (let i = 0; i < 40; i++) {
        await store.put({ service: `https://id${i % 3}.example`, operatorToken: `opc_${'x'.repeat(2000)}${i}`, operatorTokenExpiresAt: null, refreshToken: null, refreshTokenExpiresAt: null, updatedAt: new Date(Date.now() + i).toISOString() });
      }
      writing = false;
      await reader;
      expect(reads).toBeGreaterThan(0);
      expect(statSync(file).ino).not.toBe(fstatSync(first).ino);
      expect(readFileSync(first, 'utf8')).toBe(firstContents);
      closeSync(first);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readdirSync(path.dirname(file))).toEqual(['credentials.json']);
      expect((await store.list()).map((c) => c.service)).toEqual(['https://id0.example', 'https://id2.example', 'https://id1.example', server.url]);
    });

    it.each([['0644', 0o644], ['0640', 0o640], ['0604', 0o604], ['0620', 0o620]])('refuses a file of mode %s, to read and to write, and the client sends nothing', async (_, mode) => {
      const stored = await login();
      const file = await storeWith(stored);
      chmodSync(file, mode);
      const before = readFileSync(file, 'utf8');
      const store = openCredentialStore(file);
      await expect(store.list()).rejects.toThrow(CredentialStoreError);
      await expect(store.list()).rejects.toThrow(/open to other users.*chmod 600/);
      await expect(store.put({ ...stored, operatorToken: 'opc_other' })).rejects.toThrow(CredentialStoreError);
      expect(readFileSync(file, 'utf8')).toBe(before);
      await expect(agent(file).client.fetch(`${merchant}/open`)).rejects.toThrow(/chmod 600/);
      expect(seenAt('/open')).toEqual([]);
    });

    it('refuses a file that is not a credential store instead of overwriting it', async () => {
      const file = newStore();
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      writeFileSync(file, '{"something": "else"}', { mode: 0o600 });
      await expect(openCredentialStore(file).put({ service: server.url, operatorToken: 'opc_x', operatorTokenExpiresAt: null, refreshToken: null, refreshTokenExpiresAt: null, updatedAt: '' })).rejects.toThrow(/not a credential store/);
      expect(readFileSync(file, 'utf8')).toBe('{"something": "else"}');
    });
  });

  describe('denials', () => {
    it('invalid_credential: the stored token is dropped and the request goes once more without it (here: with the wallet)', async () => {
      const stored = await login();
      const bogus = { ...stored, operatorToken: `opc_${'Q'.repeat(32)}` };
      const store = await storeWith(bogus);
      const wallet = freshWallet().toLowerCase();
      const a = agent(store, { walletAddress: wallet });
      expect((await a.client.fetch(`${merchant}/open`)).status).toBe(200);
      expect(seenAt('/open')).toEqual([
        { token: bogus.operatorToken, wallet: null },
        { token: null, wallet },
      ]);
      expect(JSON.parse(a.answers[0]!).error.code).toBe('invalid_credential');
      expect(await openCredentialStore(store).list()).toEqual([]);
    });

    it('token_expired without a session, no refresh possible: the request goes once more without the token', async () => {
      const stored = await login();
      const store = await storeWith({ ...stored, refreshToken: null, refreshTokenExpiresAt: null });
      const wallet = freshWallet().toLowerCase();
      const a = agent(store, { walletAddress: wallet });
      expect((await a.client.fetch(`${merchant}/expired`)).status).toBe(200);
      expect(seenAt('/expired')).toEqual([
        { token: stored.operatorToken, wallet: null },
        { token: null, wallet },
      ]);
      expect(a.lines.some((l) => /expired and could not be renewed; retrying without it/.test(l))).toBe(true);
    });

    it('wallet_signer_mismatch: switches to the stored operator token, which the signer passes with', async () => {
      const stored = await login();
      const store = await storeWith(stored);
      const signer = freshWallet();
      const wallet = freshWallet().toLowerCase();
      const a = agent(store);
      const res = await a.client.fetch(`${merchant}/paid`, { headers: { 'X-Wallet-Address': wallet, 'X-Test-Signer': signer } });
      expect(res.status).toBe(200);
      expect(JSON.parse(a.answers[0]!).error.code).toBe('wallet_signer_mismatch');
      expect(seenAt('/paid')).toEqual([
        { token: null, wallet },
        { token: stored.operatorToken, wallet: null },
      ]);
    });

    it('wallet_signer_mismatch without a stored token: an error naming the signers', async () => {
      const signer = freshWallet().toLowerCase();
      const wallet = freshWallet().toLowerCase();
      const err = await agentError(agent(newStore()).client.fetch(`${merchant}/paid`, { headers: { 'X-Wallet-Address': wallet, 'X-Test-Signer': signer } }));
      expect(err.code).toBe('wallet_signer_mismatch');
      expect(err.status).toBe(403);
      expect(err.message).toContain(`expected signer ${wallet}`);
      expect(err.message).toContain(signer);
      expect(seenAt('/paid')).toHaveLength(1);
    });

    it('wallet_auth_requires_wallet_signing (a rail without a wallet signature): switches to the stored operator token', async () => {
      const stored = await login();
      const a = agent(await storeWith(stored), { walletAddress: freshWallet(), skipStoredToken: false });
      const wallet = freshWallet().toLowerCase();
      expect((await a.client.fetch(`${merchant}/paid`, { headers: { 'X-Wallet-Address': wallet, 'X-Test-Signer': 'none' } })).status).toBe(200);
      expect(JSON.parse(a.answers[0]!).error.code).toBe('wallet_auth_requires_wallet_signing');
      expect(seenAt('/paid')).toEqual([
        { token: null, wallet },
        { token: stored.operatorToken, wallet: null },
      ]);
    });

    it('wallet_not_trusted (a payment signed by a listed wallet): stops with the code, reasons and user message', async () => {
      const a = agent(await storeWith(await login()));
      const err = await agentError(a.client.fetch(`${merchant}/paid`, { headers: { 'X-Test-Signer': listedSigner } }));
      expect(err.code).toBe('wallet_not_trusted');
      expect(err.status).toBe(403);
      expect(err.reasons).toContain('sanctions_flagged');
      expect(err.userMessage).toEqual(expect.any(String));
      expect(seenAt('/paid')).toHaveLength(1);
    });
  });

  describe('a denial\'s session on another service', () => {
    it('verify_url and poll_url on different services, or no session address: refused, nothing shown, the poll secret sent nowhere', async () => {
      const elsewhere = `http://127.0.0.1:${await freePort()}`;
      const cases: [verify: string, poll: string, problem: RegExp][] = [
        [`${server.url}/verify/sess_forged`, `${elsewhere}/v1/sessions/sess_forged`, /on different services/],
        [`${elsewhere}/verify/sess_forged`, `${server.url}/v1/sessions/sess_forged`, /on different services/],
        [`${server.url}/verify/sess_forged`, `${elsewhere}/collect`, /not a session address/],
      ];
      for (const [verify, poll, problem] of cases) {
        const sent: { url: string; pollSecret: string | null }[] = [];
        const a = agent(newStore(), {
          fetch: (input, init) => {
            sent.push({ url: input instanceof Request ? input.url : String(input), pollSecret: new Headers(init?.headers).get('x-poll-secret') });
            return fetch(input, init);
          },
        });
        const err = await agentError(a.client.fetch(`${merchant}/forged?verify=${encodeURIComponent(verify)}&poll=${encodeURIComponent(poll)}`));
        expect([err.code, err.message]).toEqual(['identity_verification_required', expect.stringMatching(problem)]);
        expect(a.shown).toEqual([]);
        expect(sent).toEqual([{ url: expect.stringMatching(new RegExp(`^${merchant}/forged`)), pollSecret: null }]);
      }
    });
  });

  describe('503 api_error', () => {
    it('retry_with_backoff: waits 5, 10, 20, then 30 s each, and gives up before 5 minutes are over', async () => {
      const a = agent(newStore(), { walletAddress: freshWallet() });
      const err = await agentError(a.client.fetch(`${merchant}/down`));
      expect(err.code).toBe('api_error');
      expect(err.status).toBe(503);
      expect(err.message).toMatch(/gave up after 4 min 35 s/);
      expect(a.slept).toEqual([5_000, 10_000, 20_000, 30_000, 30_000, 30_000, 30_000, 30_000, 30_000, 30_000, 30_000]);
      expect(seenAt('/down')).toHaveLength(12);
      expect(a.lines.filter((l) => /identity check is unavailable \(\w+\); retrying in \d+ s$/.test(l))).toHaveLength(11);
    });

    it('retry_with_backoff: the request passes once the service is back', async () => {
      flakyFailures = 2;
      const a = agent(newStore(), { walletAddress: freshWallet() });
      expect((await a.client.fetch(`${merchant}/flaky`)).status).toBe(200);
      expect(a.slept).toEqual([5_000, 10_000]);
      expect(seenAt('/flaky')).toHaveLength(3);
    });

    it('a shorter maxWaitMs gives up sooner', async () => {
      const a = agent(newStore(), { walletAddress: freshWallet(), maxWaitMs: 20_000 });
      await agentError(a.client.fetch(`${merchant}/down`));
      expect(a.slept).toEqual([5_000, 10_000]);
    });

    it('contact_merchant (the merchant\'s own call refused): stops at once, without retrying', async () => {
      const a = agent(newStore(), { walletAddress: freshWallet() });
      const err = await agentError(a.client.fetch(`${merchant}/misconfigured`));
      expect(err.code).toBe('api_error');
      expect(err.message).toMatch(/^the merchant's identity check is misconfigured or over its quota \(.*\): do not retry; contact the merchant$/);
      expect(a.slept).toEqual([]);
      expect(seenAt('/misconfigured')).toHaveLength(1);
    });
  });

  describe('polling an identity service of the test\'s own', () => {
    // "The identity service" here: a small server answering the session poll from `script` in order
    // (the last answer again and again), and refresh exchanges under any /sN prefix (a service of
    // its own per prefix). The merchant's /forged route hands out its session.
    interface Canned {
      status: number;
      body: unknown;
      headers?: Record<string, string>;
    }
    let service: string;
    let script: Canned[] = [];
    let pollSecrets: (string | null)[] = [];
    let refreshes: string[] = [];
    const pollPath = '/v1/sessions/sess_canned';
    const forged = () => `${merchant}/forged?verify=${encodeURIComponent(`${service}/verify/sess_canned`)}&poll=${encodeURIComponent(`${service}${pollPath}`)}`;
    const pending = (retryAfterSeconds: number): Canned => ({ status: 200, body: { session_id: 'sess_canned', status: 'pending', retry_after_seconds: retryAfterSeconds, next_steps: continuePolling() } });

    beforeAll(async () => {
      const fake = http.createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const refresh = /^\/s(\d+)\/v1\/tokens\/refresh$/.exec(req.url ?? '');
        let answer: Canned | undefined;
        if (req.method === 'GET' && req.url === pollPath) {
          pollSecrets.push((req.headers['x-poll-secret'] as string | undefined) ?? null);
          answer = script.length > 1 ? script.shift() : script[0];
        } else if (req.method === 'POST' && refresh) {
          refreshes.push(`/s${refresh[1]} ${JSON.parse(Buffer.concat(chunks).toString()).refresh_token}`);
          answer = { status: 200, body: { operator_token: `opc_renewed${refresh[1]}`, expires_at: new Date(clock + hour).toISOString(), refresh_token: `prt_renewed${refresh[1]}`, refresh_token_expires_at: new Date(clock + 24 * hour).toISOString() } };
        }
        answer ??= { status: 404, body: { error: { code: 'not_found', message: `no ${req.method} ${req.url} here` } } };
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end(JSON.stringify(answer.body));
      });
      await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
      service = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
      afterAll(async () => {
        fake.closeAllConnections();
        await new Promise((resolve) => fake.close(resolve));
      });
    });
    beforeEach(() => {
      script = [];
      pollSecrets = [];
      refreshes = [];
    });

    it('the poll\'s 429 and 5xx: waits Retry-After (at least the interval) and polls again, then takes the token', async () => {
      const store = newStore();
      const unavailable = { error: { code: 'unavailable', message: 'try again' } };
      script = [
        { status: 429, body: { error: { code: 'rate_limited', message: 'slow down' } }, headers: { 'Retry-After': '12' } },
        { status: 503, body: unavailable },
        { status: 500, body: unavailable, headers: { 'Retry-After': '2' } },
        pending(3),
        {
          status: 200,
          body: { session_id: 'sess_canned', status: 'verified', operator_token: `opc_${'V'.repeat(32)}`, token_expires_at: new Date(clock + 24 * hour).toISOString(), refresh_token: `prt_${'V'.repeat(32)}`, refresh_token_expires_at: new Date(clock + 90 * 24 * hour).toISOString(), next_steps: retryWithOperatorToken() },
        },
      ];
      const a = agent(store);
      expect((await a.client.fetch(forged())).status).toBe(200);
      // Retry-After 12; no Retry-After: the interval (5 s); Retry-After 2 < the interval: the interval; pending's retry_after_seconds.
      expect(a.slept).toEqual([12_000, 5_000, 5_000, 3_000]);
      expect(pollSecrets).toEqual(Array(5).fill('pls_forgedforgedforged'));
      expect(a.lines.filter((l) => /answered the poll with (429|503|500); trying again in \d+ s$/.test(l))).toHaveLength(3);
      expect(seenAt('/forged').map((s) => s.token)).toEqual([null, `opc_${'V'.repeat(32)}`]);
      expect((await openCredentialStore(store).get(service))?.operatorToken).toBe(`opc_${'V'.repeat(32)}`);
    });

    it('a session pending for ever: polling stops after 65 minutes of the agent\'s clock with verification_expired', async () => {
      script = [pending(600)];
      let now = clock;
      const slept: number[] = [];
      const a = agent(newStore(), {
        now: () => new Date(now),
        sleep: async (ms) => {
          slept.push(ms);
          now += ms;
        },
      });
      const err = await agentError(a.client.fetch(forged()));
      expect([err.code, err.message]).toEqual(['verification_expired', 'no result after 65 min 00 s of polling (the session was to end at its expiry)']);
      // Polls at 0, 10, …, 60 minutes; at 70 the guard stops it.
      expect(slept).toEqual(Array(7).fill(600_000));
      expect(pollSecrets).toHaveLength(7);
      expect(seenAt('/forged')).toHaveLength(1);
    });

    it('a merchant answering a new denial every time: the client follows 8 and stops at the ninth', async () => {
      // A login at each of 8 services, so every token_expired (on the next service) is renewed by a refresh there.
      const store = newStore();
      const credentials = openCredentialStore(store);
      for (let i = 1; i <= 8; i++) {
        await credentials.put({ service: `${service}/s${i}`, operatorToken: `opc_stored${i}`, operatorTokenExpiresAt: new Date(clock + hour).toISOString(), refreshToken: `prt_stored${i}`, refreshTokenExpiresAt: new Date(clock + 24 * hour).toISOString(), updatedAt: new Date(clock).toISOString() });
      }
      const a = agent(store);
      const err = await agentError(a.client.fetch(`${merchant}/every-time?service=${encodeURIComponent(service)}`));
      expect([err.code, err.status]).toEqual(['token_expired', 401]);
      expect(err.message).toBe('gave up after 8 denials in a row; the last: the operator token expired');
      const eight = [1, 2, 3, 4, 5, 6, 7, 8];
      expect(refreshes).toEqual(eight.map((i) => `/s${i} prt_stored${i}`));
      expect(seenAt('/every-time').map((s) => s.token)).toEqual([expect.stringMatching(/^opc_stored\d$/), ...eight.map((i) => `opc_renewed${i}`)]);
      expect(a.shown).toEqual([]);
      expect(pollSecrets).toEqual([]);
    });
  });

  describe('reputation agent (CLI)', () => {
    const env = (config: string) => cliEnv(dataDir, { XDG_CONFIG_HOME: config });

    it('agent fetch: a whole verification on a plain terminal, the token in $XDG_CONFIG_HOME, the answer on stdout', async () => {
      const config = path.join(home, 'xdg-1');
      const run = spawnCli(['agent', 'fetch', `${merchant}/paid`], env(config));
      let verifyUrl: string | null = null;
      for (let waited = 0; waited < 30_000 && verifyUrl === null; waited += 50) {
        verifyUrl = /verify your identity at (\S+)/.exec(run.output().stderr)?.[1] ?? null;
        if (run.output().code !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(verifyUrl, run.output().stderr).toMatch(new RegExp(`^${server.url}/verify/sess_`));
      expect((await submitSandbox(verifyUrl!, clearPerson)).status).toBe(303);
      const done = await run.done;
      expect(done.code, done.stderr).toBe(0);
      expect(JSON.parse(done.stdout)).toEqual({ report: 'premium weather', identity_mode: 'operator_token', wallet: null });
      expect(done.stderr).toMatch(/waiting for identity verification \(pending/);
      expect(done.stderr).toMatch(/identity verified; operator token opc_\w{4}… stored in/);
      // Not a terminal: a plain line, no QR code, no cursor movement.
      expect(done.stderr).not.toMatch(/[█▀▄]|\x1b\[/);
      const file = path.join(config, 'wallet-reputation', 'credentials.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const token = JSON.parse(readFileSync(file, 'utf8')).services[server.url].operator_token as string;
      expect(seenAt('/paid').map((s) => s.token)).toEqual([null, token]);

      // agent token show: the service, the prefix and expiries, never the whole secret.
      const shown = await runCli(['agent', 'token', 'show'], env(config));
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(server.url);
      expect(shown.stdout).toContain(`${token.slice(0, 8)}…`);
      expect(shown.stdout).not.toContain(token);
      expect(shown.stdout).not.toMatch(/prt_\w{9}/);
      const json = await runCli(['agent', 'token', '--json'], env(config));
      expect(JSON.parse(json.stdout)).toMatchObject({ service: server.url, token: `${token.slice(0, 8)}…`, token_state: 'valid', refresh_token: expect.stringMatching(/^prt_\w{4}…$/) });

      const cleared = await runCli(['agent', 'token', 'clear'], env(config));
      expect([cleared.code, cleared.stdout]).toEqual([0, `removed 1 stored login from ${file}\n`]);
      const empty = await runCli(['agent', 'token', 'show'], env(config));
      expect(empty.stdout).toBe(`no stored tokens in ${file}\n`);
    });

    it('agent fetch on a terminal: the verify URL with a QR code, one progress line redrawn in place', async () => {
      const run = spawnCliOnTerminal(['agent', 'fetch', `${merchant}/paid`, '--store', newStore()], env(path.join(home, 'xdg-tty')));
      let verifyUrl: string | null = null;
      for (let waited = 0; waited < 30_000 && verifyUrl === null; waited += 50) {
        verifyUrl = new RegExp(`${server.url}/verify/sess_[\\w-]+`).exec(run.output().stdout)?.[0] ?? null;
        if (run.output().code !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(verifyUrl, run.output().stdout).not.toBeNull();
      const screen = run.output().stdout;
      expect(screen).toMatch(/To continue, verify your identity: open this page \(or scan the code with your phone\)/);
      // The QR code: rows of block characters, in the lines before the URL.
      const qrRows = screen.slice(0, screen.indexOf(verifyUrl!)).split('\n').filter((l) => /^[█▀▄ ]{20,}\r?$/.test(l));
      expect(qrRows.length).toBeGreaterThan(10);
      expect((await submitSandbox(verifyUrl!, clearPerson)).status).toBe(303);
      const done = await run.done;
      expect(done.code, done.stdout).toBe(0);
      // The progress line is redrawn in place (carriage return, erase to the end of the line), then the answer.
      expect(done.stdout).toMatch(/\rwaiting for identity verification \(pending[^\n]*\x1b\[K/);
      expect(done.stdout).toContain('"report":"premium weather"');
    });

    it('agent fetch --store FILE --json with a stored token; a denial it cannot fix exits 1 with the code, reasons and user message', async () => {
      const stored = await login();
      const store = await storeWith(stored);
      const ok = await runCli(['agent', 'fetch', `${merchant}/paid`, '--store', store, '--json'], env(path.join(home, 'xdg-unused')));
      expect(ok.code, ok.stderr).toBe(0);
      expect(JSON.parse(ok.stdout)).toEqual({ status: 200, body: { report: 'premium weather', identity_mode: 'operator_token', wallet: null } });

      const denied = await runCli(['agent', 'fetch', `${merchant}/paid`, '--store', store, '--header', `X-Test-Signer: ${listedSigner}`, '--json'], env(path.join(home, 'xdg-unused')));
      expect(denied.code).toBe(1);
      expect(JSON.parse(denied.stdout)).toEqual({
        error: { code: 'wallet_not_trusted', message: expect.any(String), status: 403, reasons: expect.arrayContaining(['sanctions_flagged']), user_message: expect.any(String) },
      });
      expect(denied.stderr).toMatch(/^reputation: wallet_not_trusted: /);
      expect(seenAt('/paid').map((s) => s.token)).toEqual([stored.operatorToken, stored.operatorToken]);

      // --no-stored-token with --wallet: the wallet goes instead.
      const wallet = freshWallet().toLowerCase();
      const skipped = await runCli(['agent', 'fetch', `${merchant}/open`, '--store', store, '--no-stored-token', '--wallet', wallet], env(path.join(home, 'xdg-unused')));
      expect(skipped.code, skipped.stderr).toBe(0);
      expect(JSON.parse(skipped.stdout)).toMatchObject({ identity_mode: 'wallet', wallet });
    });

    it.each([
      [['agent', 'fetch', 'ftp://example.org/x'], /the url must be an http or https URL/],
      [['agent', 'fetch', 'http://127.0.0.1:1/x', '--data', '{nope'], /--data must be JSON/],
      [['agent', 'fetch', 'http://127.0.0.1:1/x', '--header', 'no colon'], /--header takes NAME:VALUE/],
      [['agent', 'fetch', 'http://127.0.0.1:1/x', '--wallet', '0x123'], /--wallet takes an EVM address/],
      [['agent', 'fetch', 'http://127.0.0.1:1/x', '--method', 'GET', '--data', '{}'], /--data cannot go with --method GET/],
      [['agent', 'fetch'], /missing required argument/],
      [['agent', 'token', 'rotate'], /unknown action "rotate"/],
      [['agent', 'token', 'show', '--service', 'http://x'], /--service goes with agent token clear/],
    ])('usage error %j: one line, exit 2', async (args, message) => {
      const res = await runCli(args, env(path.join(home, 'xdg-usage')));
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(message);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
    });

    it('--help on agent fetch and agent token', async () => {
      for (const args of [['agent', 'fetch', '--help'], ['agent', 'token', '--help']]) {
        const res = await runCli(args, env(path.join(home, 'xdg-usage')));
        expect(res.code).toBe(0);
        expect(res.stdout).toContain('--store <file>');
      }
    });
  });

  // Last: these move the service's clock a day on.
  describe('refresh tokens', () => {
    it('a token the store says expired is exchanged before the request; the new pair is stored', async () => {
      const stored = await login();
      const store = await storeWith({ ...stored, operatorTokenExpiresAt: new Date(clock - 60_000).toISOString() });
      const a = agent(store);
      expect((await a.client.fetch(`${merchant}/paid`)).status).toBe(200);
      const [renewed] = await openCredentialStore(store).list();
      expect(renewed!.operatorToken).toMatch(/^opc_/);
      expect(renewed!.operatorToken).not.toBe(stored.operatorToken);
      expect(renewed!.refreshToken).not.toBe(stored.refreshToken);
      expect(renewed!.operatorTokenExpiresAt).toBe(new Date(clock + 24 * hour).toISOString());
      expect(seenAt('/paid')).toEqual([{ token: renewed!.operatorToken, wallet: null }]);
      expect(a.lines.some((l) => /operator token refreshed/.test(l))).toBe(true);
    });

    it('token_expired from the merchant (the service\'s clock a day on): refreshes at the service and retries, no verification', async () => {
      const stored = await login();
      const store = await storeWith(stored);
      // The service's clock a day on; the agent's where it was, so the stored token looks valid to it.
      const agentClock = clock;
      clock += 25 * hour;
      await (await server.jobs.run('refresh-sanctions-list', {})).done;
      const a = agent(store, { now: () => new Date(agentClock) });
      expect((await a.client.fetch(`${merchant}/paid`)).status).toBe(200);
      expect(JSON.parse(a.answers[0]!).error.code).toBe('token_expired');
      expect(a.shown).toEqual([]);
      const [renewed] = await openCredentialStore(store).list();
      expect(renewed!.operatorToken).not.toBe(stored.operatorToken);
      expect(seenAt('/paid')).toEqual([
        { token: stored.operatorToken, wallet: null },
        { token: renewed!.operatorToken, wallet: null },
      ]);
    });

    it('token_expired with a refresh token the service refuses: the login is dropped and the denial\'s session verified', async () => {
      const stored = await login();
      const store = await storeWith({ ...stored, refreshToken: `prt_${'Z'.repeat(32)}` });
      const agentClock = clock;
      clock += 25 * hour;
      await (await server.jobs.run('refresh-sanctions-list', {})).done;
      const a = agent(store, { person: clearPerson, now: () => new Date(agentClock) });
      expect((await a.client.fetch(`${merchant}/paid`)).status).toBe(200);
      expect(a.lines.some((l) => /refresh token was refused \(invalid_credential\)/.test(l))).toBe(true);
      expect(a.shown).toHaveLength(1);
      const [fresh] = await openCredentialStore(store).list();
      expect(fresh!.refreshToken).toMatch(/^prt_[A-Za-z0-9]{32}$/);
      expect(seenAt('/paid')).toEqual([
        { token: stored.operatorToken, wallet: null },
        { token: fresh!.operatorToken, wallet: null },
      ]);
    });
  });

  // After the refresh tokens: this moves the service's clock an hour on.
  describe('a session that expires while polled', () => {
    it('expired (create_new_session): stops with verification_expired and its user message; no new session, no retry of the request', async () => {
      const store = newStore();
      const a = agent(store, {
        onPage: async () => {
          clock += hour;
        },
      });
      const err = await agentError(a.client.fetch(`${merchant}/paid`));
      expect([err.code, err.message]).toEqual(['verification_expired', 'the verification session expired before it was completed; retry the request to start a new one']);
      expect(err.details).toMatchObject({ status: 'expired', next_steps: { action: 'create_new_session' } });
      expect(err.userMessage).toMatch(/expired\. Retry the merchant request/);
      expectStoppedAfterOnePoll(a, store);
    });
  });
});
