// The merchant gate's core (gate/CONTRACT.md, spec 7.2) against the real service over HTTP: every
// denial code with its status, fields and agent_instructions.action, the wallet-mode fields, fail
// closed and fail open, the cache and the timeout. The gate is imported as a merchant imports it.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../api/accounts.ts';
import { createGate, isDenial, type GateDenial, type GateOptions, type GatePass, type GateResult, type Policy, type ServiceProblem } from 'wallet-reputation/gate';
import { call, claimFreshWallet, clearPerson, poll, submitSandbox, type SandboxFields } from './helpers/identity.ts';
import { answeringServer, captureWallet, countingFetch, freshWallet, gateService, jsonServer, listedEth, operatorLogin, silentServer, stoppedServiceUrl } from './helpers/gate.ts';

const policy: Policy = { require_kyc: true, require_sanctions_clear: true, min_age: 21, allowed_jurisdictions: ['US'] };
const young: SandboxFields = { outcome: 'verified', jurisdiction: 'US', age: '18+', name: 'Evander Quill' };
const german: SandboxFields = { outcome: 'verified', jurisdiction: 'DE', age: '21+', name: 'Liesel Brandt' };

function denied(result: GateResult, status: number, code: string, action: string): Record<string, any> {
  expect(isDenial(result), JSON.stringify(result)).toBe(true);
  const { body, status: actual, headers } = result as GateDenial;
  expect([actual, body.error.code, body.error.agent_instructions.action]).toEqual([status, code, action]);
  expect(body.error.message).toEqual(expect.any(String));
  expect(body.error.agent_instructions.steps.length).toBeGreaterThan(0);
  expect(body.error.agent_instructions.user_message).toEqual(expect.any(String));
  expect(headers?.['Cache-Control']).toBe('no-store');
  // Spec 7.1: every field inside `error`.
  expect(Object.keys(body)).toEqual(['error']);
  return body.error;
}

function passed(result: GateResult): GatePass {
  expect(isDenial(result), JSON.stringify(result)).toBe(false);
  return result as GatePass;
}

describe('the merchant gate against the service', () => {
  const service = gateService('gate');
  const gateFor = (options: Partial<GateOptions> = {}) => {
    const counter = countingFetch();
    const gate = createGate({ serviceUrl: service.url, apiKey: service.keys.pro, policy, fetch: counter.fetch, ...options });
    return { gate, counter };
  };
  const login = (person: SandboxFields = clearPerson) => operatorLogin(service, person);
  const asToken = (token: string) => ({ headers: { 'X-Operator-Token': token } });
  const asWallet = (wallet: string) => ({ headers: { 'X-Wallet-Address': wallet } });
  /** A gate whose onServiceProblem reports are kept. */
  const reportingGate = (options: Partial<GateOptions> = {}) => {
    const problems: ServiceProblem[] = [];
    return { ...gateFor({ ...options, onServiceProblem: (p) => problems.push(p) }), problems };
  };
  const unavailableMessage = "the merchant's identity check is unavailable for a moment; retry in 5 to 30 s";

  describe('no identity header', () => {
    it('auto-session (the default): 403 identity_verification_required with a real session, whose token then passes', async () => {
      const { gate, counter } = gateFor();
      const error = denied(await gate.evaluate({ headers: {} }), 403, 'identity_verification_required', 'deliver_verify_url_and_poll');
      expect(error).toMatchObject({
        verify_url: expect.stringMatching(/\/verify\/sess_/),
        session_id: expect.stringMatching(/^sess_/),
        poll_secret: expect.stringMatching(/^pls_/),
        poll_url: expect.stringMatching(/\/v1\/sessions\/sess_/),
        expires_at: expect.stringMatching(/^\d{4}-/),
        poll_interval_seconds: 5,
        reasons: ['kyc_required'],
      });
      expect(error.identity_mode).toBeUndefined();
      expect(counter.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /v1/sessions']);
      const client = service.client();
      await submitSandbox(error.verify_url, clearPerson, client);
      const polled = await poll(error.poll_url, error.poll_secret, client);
      expect(polled.body.status).toBe('verified');
      const pass = passed(await gate.evaluate(asToken(polled.body.operator_token)));
      expect(pass).toMatchObject({ identityStatus: 'verified', identityMode: 'operator_token', operatorToken: polled.body.operator_token, assessment: { decision: 'allow', decision_reasons: [] } });
    });

    it("autoSession false: 403 missing_identity with agent_memory naming the service's own address, asked once (no session minted)", async () => {
      // The merchant configured another spelling of the address: agents are still sent to the
      // service's own (spec 2.5: never derived from a merchant's configuration).
      const configured = service.url.replace('127.0.0.1', 'localhost');
      expect(configured).not.toBe(service.url);
      const { gate, counter } = gateFor({ autoSession: false, serviceUrl: configured });
      const error = denied(await gate.evaluate({ headers: {} }), 403, 'missing_identity', 'probe_identity_then_session');
      expect(counter.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['GET /health']);
      counter.calls.length = 0;
      expect(error.agent_memory).toMatchObject({
        identity_check_endpoint: service.url,
        do_not_persist_in_memory: expect.arrayContaining(['operator_token', 'poll_secret']),
        persist_in_credential_store: expect.arrayContaining(['operator_token']),
        identity_paths: { operator_token: { header: 'X-Operator-Token' }, wallet: { header: 'X-Wallet-Address' } },
      });
      // A wallet header that is no address is no identity; it says so, and the service never sees it.
      const malformed = denied(await gate.evaluate(asWallet('0x1234')), 403, 'missing_identity', 'probe_identity_then_session');
      expect(malformed.message).toContain('"0x1234" is not a wallet address');
      expect(counter.calls).toEqual([]);
    });
  });

  describe("the service's own address", () => {
    it('comes from a session answer too; with the service unreachable the configured URL stands in, asked again after a minute at most', async () => {
      // Learned from the auto-session's answer: the later missing_identity needs no health call.
      const counter = countingFetch();
      const configured = service.url.replace('127.0.0.1', 'localhost');
      const learning = createGate({ serviceUrl: configured, apiKey: service.keys.pro, fetch: counter.fetch });
      denied(await learning.evaluate({ headers: {} }), 403, 'identity_verification_required', 'deliver_verify_url_and_poll');
      expect(counter.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /v1/sessions']);

      const stopped = await stoppedServiceUrl();
      const unreachable = countingFetch();
      const gate = createGate({ serviceUrl: stopped, apiKey: service.keys.pro, autoSession: false, fetch: unreachable.fetch });
      for (let i = 0; i < 3; i++) {
        expect(denied(await gate.evaluate({ headers: {} }), 403, 'missing_identity', 'probe_identity_then_session').agent_memory.identity_check_endpoint).toBe(stopped);
      }
      expect(unreachable.count('/health')).toBe(1);
    });
  });

  describe('the identity read', () => {
    it('X-Operator-Token before X-Wallet-Address, from a header record or Headers, any case', async () => {
      const token = await login();
      const { gate, counter } = gateFor({ cacheTtlSeconds: 0 });
      passed(await gate.evaluate({ headers: { 'x-operator-token': token, 'x-wallet-address': freshWallet() } }));
      passed(await gate.evaluate({ headers: new Headers({ 'X-Wallet-Address': freshWallet(), 'X-OPERATOR-TOKEN': token }) }));
      expect(counter.calls.map((c) => Object.keys(c.body).sort())).toEqual([['operator_token', 'policy'], ['operator_token', 'policy']]);
      expect(counter.calls[0]!.body).toEqual({ operator_token: token, policy });
    });

    it('an operator token on a rail without a wallet signature passes: no signer goes to assess', async () => {
      const token = await login();
      const { gate, counter } = gateFor();
      passed(await gate.evaluate(asToken(token), { signer: null, network: 'evm' }));
      expect(counter.calls[0]!.body.signer).toBeUndefined();
    });
  });

  describe('rule 1: fixable reasons are identity_verification_required', () => {
    it('kyc_required of an unverified wallet: assess\'s own session, with the wallet-mode fields (rule 3)', async () => {
      const wallet = freshWallet();
      const { gate, counter } = gateFor();
      const error = denied(await gate.evaluate(asWallet(wallet)), 403, 'identity_verification_required', 'deliver_verify_url_and_poll');
      expect(error).toMatchObject({
        reasons: ['kyc_required'],
        session_id: expect.stringMatching(/^sess_/),
        poll_secret: expect.stringMatching(/^pls_/),
        identity_mode: 'wallet',
        required_signer: wallet.toLowerCase(),
        linked_wallets: [wallet.toLowerCase()],
        signer_constraint: expect.stringContaining(wallet.toLowerCase()),
      });
      expect(counter.count('/v1/sessions')).toBe(0);
      expect(counter.calls[0]!.body.address).toBe(wallet.toLowerCase());
    });

    it('kyc_pending (a verification under way, assess gives no session): the gate mints one with POST /v1/sessions', async () => {
      const holder = await createAccount(service.server.store, { plan: 'pro' }, service.server.keys);
      const wallet = await claimFreshWallet(service.url, holder.api_key);
      expect((await call(service.url, 'POST', '/v1/credentials', { key: holder.api_key, body: {} })).status).toBe(409);
      const { gate, counter } = gateFor();
      const error = denied(await gate.evaluate(asWallet(wallet)), 403, 'identity_verification_required', 'deliver_verify_url_and_poll');
      expect(error).toMatchObject({ reasons: ['kyc_pending'], session_id: expect.stringMatching(/^sess_/), poll_secret: expect.stringMatching(/^pls_/), identity_mode: 'wallet' });
      expect(counter.calls.map((c) => `${c.method} ${c.path}`)).toEqual(['POST /v1/assess', 'POST /v1/sessions']);
    });
  });

  describe('operator tokens', () => {
    it('expired: 401 token_expired with the session assess minted and where to refresh', async () => {
      const token = await login();
      const { gate } = gateFor();
      service.clock.offsetMs = 25 * 3_600_000;
      const result = await gate.evaluate(asToken(token)).finally(() => (service.clock.offsetMs = 0));
      const error = denied(result, 401, 'token_expired', 'deliver_verify_url_and_poll');
      expect(error).toMatchObject({
        verify_url: expect.stringMatching(/\/verify\/sess_/),
        session_id: expect.stringMatching(/^sess_/),
        poll_secret: expect.stringMatching(/^pls_/),
        poll_url: expect.any(String),
        expires_at: expect.any(String),
      });
      expect(error.refresh_url).toBe(`${new URL(error.poll_url).origin}/v1/tokens/refresh`);
      expect(error.agent_instructions.steps[0]).toMatch(/refresh token/);
    });

    it('expired, and no session to be had (assess gave none, the mint refused or unreachable): 401 token_expired with refresh_url, never a fail-open pass', async () => {
      const expiredOnly = await answeringServer(401, 'token_expired');
      for (const sessions of [expiredOnly, await stoppedServiceUrl()]) {
        const { gate, problems } = reportingGate({
          serviceUrl: expiredOnly,
          failOpen: true,
          fetch: countingFetch((url) => (url.pathname === '/v1/sessions' ? `${sessions}${url.pathname}` : undefined)).fetch,
        });
        const error = denied(await gate.evaluate(asToken('opc_expiredexpiredexpiredexpiredexpi')), 401, 'token_expired', 'switch_token_or_restart_session');
        expect(error.refresh_url).toBe(`${expiredOnly}/v1/tokens/refresh`);
        expect([error.verify_url, error.session_id, error.poll_secret]).toEqual([undefined, undefined, undefined]);
        expect(error.agent_instructions.steps[0]).toMatch(/refresh_url/);
        expect(problems.map((p) => p.call)).toEqual(['sessions']);
      }
    });

    it('unknown: 401 invalid_credential, no session', async () => {
      const { gate } = gateFor();
      const error = denied(await gate.evaluate(asToken('opc_notatokenofthisservicenotatoken00')), 401, 'invalid_credential', 'switch_token_or_restart_session');
      expect(error.session_id).toBeUndefined();
    });
  });

  describe('the signer check', () => {
    it('wallet_signer_mismatch: another person\'s wallet signed, with both operators and who may sign', async () => {
      const [tokenA, tokenB] = await Promise.all([login(), login()]);
      const [walletA, walletB] = [freshWallet(), freshWallet()];
      await captureWallet(service, tokenA, walletA);
      await captureWallet(service, tokenB, walletB);
      const { gate } = gateFor({ policy: undefined });
      const error = denied(await gate.evaluate(asWallet(walletA), { signer: walletB, network: 'evm' }), 403, 'wallet_signer_mismatch', 'resign_or_switch_to_operator_token');
      const [a, b] = [walletA.toLowerCase(), walletB.toLowerCase()];
      expect(error).toMatchObject({
        claimed_operator: a,
        actual_signer_operator: b,
        expected_signer: a,
        actual_signer: b,
        linked_wallets: [a],
        identity_mode: 'wallet',
        required_signer: a,
        signer_constraint: expect.any(String),
      });
      // The same person's wallet passes.
      passed(await gate.evaluate(asWallet(walletA), { signer: walletA, network: 'evm' }));
    });

    it('wallet_auth_requires_wallet_signing: a wallet header on a rail without a wallet signature', async () => {
      const { gate, counter } = gateFor({ policy: undefined });
      const wallet = freshWallet();
      const error = denied(await gate.evaluate(asWallet(wallet), { signer: null, network: 'evm' }), 403, 'wallet_auth_requires_wallet_signing', 'switch_to_operator_token');
      expect(error).toMatchObject({ identity_mode: 'wallet', required_signer: wallet.toLowerCase() });
      expect(counter.calls[0]!.body.signer).toEqual({ address: null, network: 'evm' });
    });
  });

  describe('signerChecked: whether the pass rests on the payment\'s signer (spec 5.4)', () => {
    it('true only when assess was given a signer, in wallet and operator-token mode alike', async () => {
      const token = await login();
      const wallet = freshWallet();
      await captureWallet(service, token, wallet);
      const { gate } = gateFor();
      const payment = { signer: wallet, network: 'evm' as const };
      // Wallet mode without a payment: the wallet's owner is verified, the caller's control of it is not.
      expect(passed(await gate.evaluate(asWallet(wallet)))).toMatchObject({ identityStatus: 'verified', identityMode: 'wallet', signerChecked: false });
      expect(passed(await gate.evaluate(asWallet(wallet), payment)).signerChecked).toBe(true);
      expect(passed(await gate.evaluate(asToken(token))).signerChecked).toBe(false);
      expect(passed(await gate.evaluate(asToken(token), { signer: null, network: 'evm' })).signerChecked).toBe(false);
      expect(passed(await gate.evaluate(asToken(token), payment)).signerChecked).toBe(true);
    });
  });

  describe('wallet_not_trusted: unfixable reasons', () => {
    it('an OFAC-listed payment signer (SDN 27307): sanctions_flagged, kept in the cache', async () => {
      const token = await login();
      const { gate, counter } = gateFor();
      const payment = { signer: listedEth, network: 'evm' as const };
      const error = denied(await gate.evaluate(asToken(token), payment), 403, 'wallet_not_trusted', 'contact_support');
      expect(error).toMatchObject({ reasons: ['sanctions_flagged'], identity_mode: 'operator_token' });
      expect(error.verify_url).toBeUndefined();
      expect(counter.calls[0]!.body.signer).toEqual({ address: listedEth.toLowerCase(), network: 'evm' });
      denied(await gate.evaluate(asToken(token), payment), 403, 'wallet_not_trusted', 'contact_support');
      expect(counter.count('/v1/assess')).toBe(1);
    });

    it('in wallet mode, beside a fixable reason (an unverified wallet, a listed signer): wallet_not_trusted with the wallet-mode fields, no session', async () => {
      const wallet = freshWallet();
      const payment = { signer: listedEth, network: 'evm' as const };
      const answer = await call(service.url, 'POST', '/v1/assess', { key: service.keys.pro, body: { address: wallet, policy, signer: { address: listedEth, network: 'evm' } } });
      expect(answer.body.decision_reasons).toEqual(expect.arrayContaining(['kyc_required', 'sanctions_flagged']));
      const { gate, counter } = gateFor();
      const error = denied(await gate.evaluate(asWallet(wallet), payment), 403, 'wallet_not_trusted', 'contact_support');
      const lower = wallet.toLowerCase();
      expect(error).toMatchObject({ reasons: ['sanctions_flagged'], identity_mode: 'wallet', required_signer: lower, linked_wallets: [lower], signer_constraint: expect.stringContaining(lower) });
      expect([error.verify_url, error.session_id, error.poll_secret]).toEqual([undefined, undefined, undefined]);
      expect(counter.count('/v1/sessions')).toBe(0);
    });

    it('below the minimum age: age_insufficient; outside the allowed countries: jurisdiction_restricted', async () => {
      const { gate } = gateFor();
      expect(denied(await gate.evaluate(asToken(await login(young))), 403, 'wallet_not_trusted', 'contact_support').reasons).toEqual(['age_insufficient']);
      expect(denied(await gate.evaluate(asToken(await login(german))), 403, 'wallet_not_trusted', 'contact_support').reasons).toEqual(['jurisdiction_restricted']);
    });
  });

  describe('a deny without a reason', () => {
    it('no decision_reasons, none, or only no_policy_applied: 403 wallet_not_trusted, unspecified, even with failOpen, not kept in the cache', async () => {
      // The service never answers this itself: one that does.
      for (const reasons of [undefined, [], ['no_policy_applied']]) {
        const { gate, counter } = gateFor({ serviceUrl: await jsonServer(200, { decision: 'deny', ...(reasons ? { decision_reasons: reasons } : {}) }), failOpen: true });
        const wallet = freshWallet();
        for (let i = 0; i < 2; i++) {
          const error = denied(await gate.evaluate(asWallet(wallet)), 403, 'wallet_not_trusted', 'contact_support');
          expect(error).toMatchObject({ reasons: ['unspecified'], identity_mode: 'wallet', required_signer: wallet.toLowerCase() });
          expect([error.verify_url, error.session_id]).toEqual([undefined, undefined]);
        }
        expect(counter.calls.map((c) => c.path)).toEqual(['/v1/assess', '/v1/assess']);
      }
    });
  });

  describe('payment_required: the merchant\'s plan lacks assess', () => {
    it('free (no assess, no sessions): 403 payment_required, contact_merchant; starter has assess and passes', async () => {
      const free = gateFor({ apiKey: service.keys.free });
      const wallet = freshWallet();
      const error = denied(await free.gate.evaluate(asWallet(wallet)), 403, 'payment_required', 'contact_merchant');
      expect(error).toMatchObject({ identity_mode: 'wallet', required_signer: wallet.toLowerCase(), linked_wallets: [wallet.toLowerCase()] });
      denied(await free.gate.evaluate({ headers: {} }), 403, 'payment_required', 'contact_merchant');
      const starter = gateFor({ apiKey: service.keys.starter });
      passed(await starter.gate.evaluate(asToken(await login())));
    });
  });

  describe('rule 2: the service failing', () => {
    it('stopped: fail closed 503 api_error (retry_with_backoff, Retry-After); fail open passes degraded', async () => {
      const stopped = await stoppedServiceUrl();
      const closed = reportingGate({ serviceUrl: stopped });
      const error = denied(await closed.gate.evaluate(asToken('opc_anything')), 503, 'api_error', 'retry_with_backoff');
      expect(error.infra_reason).toBe('api_error');
      // The buyer hears that it is unavailable; what failed goes to the merchant's log only.
      expect(error.message).toBe(unavailableMessage);
      expect(closed.problems[0]).toMatchObject({ call: 'assess', detail: expect.stringContaining('ECONNREFUSED') });
      expect(error.agent_instructions.backoff).toEqual({ initial_seconds: 5, max_seconds: 30, give_up_after_seconds: 300 });
      expect((await closed.gate.evaluate(asToken('opc_anything')) as GateDenial).headers?.['Retry-After']).toBe('5');
      denied(await closed.gate.evaluate({ headers: {} }), 503, 'api_error', 'retry_with_backoff');
      const open = gateFor({ serviceUrl: stopped, failOpen: true });
      expect(passed(await open.gate.evaluate(asToken('opc_anything')))).toEqual({ identityStatus: 'unverified', identityMode: 'operator_token', operatorToken: 'opc_anything', signerChecked: false, degraded: true, infraReason: 'api_error' });
      expect(passed(await open.gate.evaluate({ headers: {} }))).toEqual({ identityStatus: 'unverified', identityMode: 'none', signerChecked: false, degraded: true, infraReason: 'api_error' });
      // A degraded pass is never cached: each request asks again.
      await open.gate.evaluate(asToken('opc_anything'));
      expect(open.counter.count('/v1/assess')).toBe(2);
    });

    it('a 5xx: 503 api_error', async () => {
      const { gate } = gateFor({ serviceUrl: await answeringServer(500, 'internal_error') });
      expect(denied(await gate.evaluate(asWallet(freshWallet())), 503, 'api_error', 'retry_with_backoff').infra_reason).toBe('api_error');
    });

    it('no answer within timeoutMs: 503 network_timeout at the timeout; fail open passes degraded', async () => {
      const silent = await silentServer();
      const { gate } = gateFor({ serviceUrl: silent.url, timeoutMs: 300 });
      const started = Date.now();
      const error = denied(await gate.evaluate(asWallet(freshWallet())), 503, 'api_error', 'retry_with_backoff');
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(error.infra_reason).toBe('network_timeout');
      const open = gateFor({ serviceUrl: silent.url, timeoutMs: 300, failOpen: true });
      expect(passed(await open.gate.evaluate(asWallet(freshWallet())))).toMatchObject({ degraded: true, infraReason: 'network_timeout', identityStatus: 'unverified' });
      expect(silent.hits.length).toBe(2);
    });

    it('the service\'s 429 (a burst past the plan\'s rate): 503 api_error, quota_exceeded, contact_merchant and no Retry-After', async () => {
      const starter = (await createAccount(service.server.store, { plan: 'starter' }, service.server.keys)).api_key;
      const { gate } = gateFor({ apiKey: starter, policy: undefined });
      const results = await Promise.all(Array.from({ length: 30 }, () => gate.evaluate(asWallet(freshWallet()))));
      const refused = results.filter(isDenial);
      expect(refused.length).toBeGreaterThan(0);
      expect(results.length - refused.length).toBeGreaterThan(0);
      for (const denial of refused) {
        expect(denied(denial, 503, 'api_error', 'contact_merchant')).toMatchObject({ infra_reason: 'quota_exceeded', message: "the merchant's identity check is over its limit with the identity service: contact the merchant" });
        expect(denial.headers?.['Retry-After']).toBeUndefined();
      }
      const open = gateFor({ serviceUrl: await answeringServer(429, 'quota_exceeded'), failOpen: true });
      expect(passed(await open.gate.evaluate(asWallet(freshWallet())))).toMatchObject({ degraded: true, infraReason: 'quota_exceeded' });
    });

    it('the service refusing the merchant\'s key: 503 api_error, contact_merchant, even with failOpen; the detail in onServiceProblem only', async () => {
      const { gate, problems } = reportingGate({ apiKey: 'rpk_notakeyofthisservice', failOpen: true });
      for (const request of [asWallet(freshWallet()), { headers: {} }]) {
        const error = denied(await gate.evaluate(request), 503, 'api_error', 'contact_merchant');
        expect(error).toMatchObject({ infra_reason: 'api_error', message: "the merchant's identity check is misconfigured: contact the merchant" });
      }
      expect(problems).toEqual([expect.objectContaining({ call: 'assess', status: 401 }), expect.objectContaining({ call: 'sessions', status: 401 })]);
    });

    it('sanctions_check_unavailable (the service\'s list older than its maximum age): 503 api_error, retry_with_backoff, fail open or not', async () => {
      const wallet = freshWallet();
      const payment = { signer: wallet, network: 'evm' as const };
      const gates = [reportingGate({ policy: undefined }), reportingGate({ policy: undefined, failOpen: true })];
      service.clock.offsetMs = 49 * 3_600_000;
      try {
        for (const { gate, problems } of gates) {
          const result = await gate.evaluate(asWallet(wallet), payment);
          expect(denied(result, 503, 'api_error', 'retry_with_backoff')).toMatchObject({ infra_reason: 'api_error', message: unavailableMessage });
          expect((result as GateDenial).headers?.['Retry-After']).toBe('5');
          expect(problems).toEqual([expect.objectContaining({ call: 'assess', detail: expect.stringContaining('sanctions_check_unavailable') })]);
        }
      } finally {
        service.clock.offsetMs = 0;
      }
      // The outage is not kept: with the list fresh again the same request passes.
      expect(passed(await gates[1]!.gate.evaluate(asWallet(wallet), payment)).signerChecked).toBe(true);
    });
  });

  describe('rule 3: the cache', () => {
    it('an allow is reused within the TTL (no assess call), per identity, policy and signer', async () => {
      const token = await login();
      const { gate, counter } = gateFor();
      const first = await gate.evaluate(asToken(token));
      expect(await gate.evaluate(asToken(token))).toEqual(first);
      expect(counter.count('/v1/assess')).toBe(1);
      passed(await gate.evaluate(asToken(token), { signer: freshWallet(), network: 'evm' }));
      expect(counter.count('/v1/assess')).toBe(2);
    });

    it("an operator token's allow is kept no longer than the token lives (assess's credential_expires_at)", async () => {
      const allow = (expiresAt: number) => ({ decision: 'allow', decision_reasons: [], identity_method: 'operator_token', credential_expires_at: new Date(expiresAt).toISOString() });
      const token = 'opc_' + 'x'.repeat(32);
      const later = gateFor({ policy: undefined, serviceUrl: await jsonServer(200, allow(Date.now() + 3_600_000)) });
      passed(await later.gate.evaluate(asToken(token)));
      passed(await later.gate.evaluate(asToken(token)));
      expect(later.counter.count('/v1/assess')).toBe(1);
      // A token past its expiry by the time the answer arrives: nothing kept.
      const gone = gateFor({ policy: undefined, serviceUrl: await jsonServer(200, allow(Date.now() - 1)) });
      passed(await gone.gate.evaluate(asToken(token)));
      passed(await gone.gate.evaluate(asToken(token)));
      expect(gone.counter.count('/v1/assess')).toBe(2);
    });

    it('a fixable denial is not kept: each request asks assess again and hands on a session of its own', async () => {
      const wallet = freshWallet();
      const { gate, counter } = gateFor();
      const first = denied(await gate.evaluate(asWallet(wallet)), 403, 'identity_verification_required', 'deliver_verify_url_and_poll');
      const second = denied(await gate.evaluate(asWallet(wallet)), 403, 'identity_verification_required', 'deliver_verify_url_and_poll');
      // Never a session (and poll secret) handed out before: the wallet is only a claim.
      expect(second.session_id).not.toBe(first.session_id);
      expect(second.poll_secret).not.toBe(first.poll_secret);
      expect(counter.count('/v1/assess')).toBe(2);
    });

    it('entries expire after cacheTtlSeconds; at most cacheMaxEntries, the least recently used out first; 0 turns it off', async () => {
      const [w1, w2, w3] = [freshWallet(), freshWallet(), freshWallet()];
      const short = gateFor({ policy: undefined, cacheTtlSeconds: 1 });
      passed(await short.gate.evaluate(asWallet(w1)));
      passed(await short.gate.evaluate(asWallet(w1)));
      expect(short.counter.count('/v1/assess')).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      passed(await short.gate.evaluate(asWallet(w1)));
      expect(short.counter.count('/v1/assess')).toBe(2);

      const small = gateFor({ policy: undefined, cacheMaxEntries: 2 });
      // w1 used again after w2, so w3 pushes out w2 (the least recently used), not w1.
      for (const w of [w1, w2, w1, w3]) passed(await small.gate.evaluate(asWallet(w)));
      expect(small.counter.count('/v1/assess')).toBe(3);
      passed(await small.gate.evaluate(asWallet(w1)));
      expect(small.counter.count('/v1/assess')).toBe(3);
      passed(await small.gate.evaluate(asWallet(w2)));
      expect(small.counter.count('/v1/assess')).toBe(4);

      const none = gateFor({ policy: undefined, cacheTtlSeconds: 0 });
      passed(await none.gate.evaluate(asWallet(w1)));
      passed(await none.gate.evaluate(asWallet(w1)));
      expect(none.counter.count('/v1/assess')).toBe(2);
    });
  });

  describe('compliance_denied', () => {
    it('the merchant\'s own unfixable refusal: 403, reasons, contact_support', () => {
      const { gate } = gateFor();
      expect(denied(gate.complianceDenied(['export_controlled']), 403, 'compliance_denied', 'contact_support').reasons).toEqual(['export_controlled']);
    });
  });
});
