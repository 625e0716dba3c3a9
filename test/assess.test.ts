// POST /v1/assess over real HTTP (spec 2.4, 4.2, 7.1): the request's errors, test mode (every
// reserved address under every policy, nothing written, no quota), wallet and operator-token
// identities, the freshness window, signer checks with the real OFAC address list (SDN 27307),
// fail-closed sanctions, the verify_url with a real session, quota headers and the audit trail.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { tempDataDir } from './helpers/temp.ts';
import { repoRoot } from './helpers/cli.ts';
import { importFile } from '../pipeline/import/import-file.ts';
import { isKnownAddress } from '../api/reputation/lookup.ts';
import path from 'node:path';
import { assessingServiceEnv, call, claimFreshWallet, clearPerson, poll, submitSandbox, verifiedLogin, type Answer } from './helpers/identity.ts';
import type { Policy } from '../identity/assess/policy.ts';

const day = 86_400_000;
// Real OFAC listings: ETH addresses of SDN 27307 (address-lists-2024-09-27 with its first-seen dates).
const listedEth = '0x098B716B8Aaf21512996dC57EB0615e2383E2f96';
const reserved = (n: number) => `0x${'0'.repeat(39)}${n}`;

describe('POST /v1/assess', () => {
  const dataDir = tempDataDir('assess');
  let server: RunningServer;
  let clock = Date.parse('2026-06-01T12:00:00Z');
  let ip = 0;
  const client = () => ({ 'X-Forwarded-For': `192.0.2.${(++ip % 250) + 1}` });
  let keys: { free: string; starter: string; pro: string };

  beforeAll(async () => {
    const config = loadConfig(assessingServiceEnv(dataDir));
    server = await startServer(config, silentLogger, { now: () => new Date(clock) });
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    keys = {
      free: (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key,
      starter: (await createAccount(server.store, { plan: 'starter', name: 'Starter Shop' }, server.keys)).api_key,
      pro: (await createAccount(server.store, { plan: 'pro', name: 'Pro Shop' }, server.keys)).api_key,
    };
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    clock += 1_000;
  });

  const assess = (body: unknown, key = keys.pro, headers: Record<string, string> = {}): Promise<Answer> => call(server.url, 'POST', '/v1/assess', { key, body, headers });

  describe('errors', () => {
    it('needs a key (401) and a plan with assess (402)', async () => {
      expect((await assess({ address: reserved(1), test: true }, '')).body.error.code).toBe('signup_required');
      expect((await assess({ address: reserved(1), test: true }, keys.free)).body.error).toMatchObject({ code: 'payment_required', entitlement: 'assess' });
    });

    it.each([
      ['not JSON', '{"address": ', 'invalid_request', /not valid JSON/],
      ['no body', undefined, 'invalid_request', /JSON body is required/],
      ['an array', [], 'invalid_request', /JSON object/],
      ['neither identity', {}, 'invalid_identity', /address .*operator_token/],
      ['both identities', { address: reserved(1), operator_token: 'opc_x' }, 'invalid_request', /not both/],
      ['an unknown address form', { address: 'bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh' }, 'invalid_request', /^address: neither an EVM address/],
      ['an EVM address of the wrong length', { address: '0x1234' }, 'invalid_address', /^address: not an EVM address/],
      ['the EVM zero address', { address: `0x${'0'.repeat(40)}` }, 'invalid_address', /zero address/],
      ['a base58 string that is not 32 bytes', { address: '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy' }, 'invalid_address', /^address: not a Solana public key/],
      ['a wrong type', { address: reserved(1), refresh: 'yes' }, 'invalid_request', /^refresh must be true or false/],
      ['an unknown field', { address: reserved(1), colour: 'red' }, 'invalid_request', /^colour: not a field/],
      ['an unknown policy rule', { address: reserved(1), policy: { require_ssn: true } }, 'invalid_request', /^policy\.require_ssn: not a field/],
      ['min_age 19', { address: reserved(1), policy: { min_age: 19 } }, 'invalid_request', /policy\.min_age must be 18 or 21/],
      ['a country that is not ISO 3166-1', { address: reserved(1), policy: { blocked_jurisdictions: ['XX'] } }, 'invalid_request', /"XX" is not an ISO 3166-1 alpha-2/],
      ['a signer network of neither kind', { address: reserved(1), signer: { address: reserved(1), network: 'bitcoin' } }, 'invalid_request', /signer\.network must be evm or solana/],
      ['a signer without an address field', { address: reserved(1), signer: { network: 'evm' } }, 'invalid_request', /signer\.address/],
      ['an invalid signer address', { address: reserved(1), signer: { address: '0xabc', network: 'evm' } }, 'invalid_address', /^signer\.address: not an EVM address/],
    ])('%s: 400 %s naming the field', async (_what, body, code, message) => {
      const answer = body === undefined ? await call(server.url, 'POST', '/v1/assess', { key: keys.pro }) : await assess(body);
      expect([answer.status, answer.body.error.code]).toEqual([400, code]);
      expect(answer.body.error.message).toMatch(message);
    });

    it('test mode takes only the reserved addresses (400 invalid_test_address), and no operator token', async () => {
      for (const body of [{ address: `0x${'0'.repeat(39)}8`, test: true }, { address: `0x${'1'.repeat(40)}`, test: true }, { operator_token: 'opc_x', test: true }]) {
        expect((await assess(body)).body.error.code).toBe('invalid_test_address');
      }
    });
  });

  describe('test mode', () => {
    const policies: Record<string, Policy | undefined> = {
      none: undefined,
      kyc: { require_kyc: true },
      sanctions: { require_sanctions_clear: true },
      age21: { min_age: 21 },
      age18: { min_age: 18 },
      blockIR: { blocked_jurisdictions: ['IR'] },
      onlyUS: { allowed_jurisdictions: ['US'] },
      everything: { require_kyc: true, require_sanctions_clear: true, min_age: 21, blocked_jurisdictions: ['IR'], allowed_jurisdictions: ['US'] },
    };
    // Spec 4.2's table, as outcomes under each policy, every cell written out.
    const K = ['kyc_required'];
    const expected: Record<number, Record<keyof typeof policies, string[]>> = {
      1: { none: ['no_policy_applied'], kyc: [], sanctions: [], age21: [], age18: [], blockIR: [], onlyUS: [], everything: [] },
      2: { none: ['no_policy_applied'], kyc: K, sanctions: K, age21: K, age18: K, blockIR: K, onlyUS: K, everything: K },
      3: { none: ['no_policy_applied'], kyc: [], sanctions: ['sanctions_flagged'], age21: [], age18: [], blockIR: [], onlyUS: [], everything: ['sanctions_flagged'] },
      4: { none: ['no_policy_applied'], kyc: [], sanctions: [], age21: [], age18: [], blockIR: [], onlyUS: ['jurisdiction_restricted'], everything: ['jurisdiction_restricted'] },
      5: { none: ['no_policy_applied'], kyc: [], sanctions: [], age21: ['age_insufficient'], age18: [], blockIR: [], onlyUS: [], everything: ['age_insufficient'] },
      6: { none: ['no_policy_applied'], kyc: [], sanctions: [], age21: [], age18: [], blockIR: ['jurisdiction_restricted'], onlyUS: ['jurisdiction_restricted'], everything: ['jurisdiction_restricted'] },
      7: { none: ['no_policy_applied'], kyc: [], sanctions: [], age21: [], age18: [], blockIR: [], onlyUS: ['jurisdiction_restricted'], everything: ['jurisdiction_restricted'] },
    };

    it('every reserved address under every policy: the table of spec 4.2, with test: true and no write', async () => {
      const tables = ['verification_sessions', 'operators', 'operator_tokens', 'wallet_captures', 'assessments', 'known_addresses'];
      const count = async () => Promise.all(tables.map(async (t) => (await server.store.read(`SELECT count(*)::INTEGER AS n FROM ${t}`))[0]!.n));
      const before = await count();
      for (let n = 1; n <= 7; n++) {
        for (const [name, policy] of Object.entries(policies)) {
          const answer = await assess({ address: reserved(n), policy, test: true }, keys.starter);
          expect(answer.status, `0x…${n} ${name}`).toBe(200);
          expect(answer.body.test).toBe(true);
          expect(answer.headers.get('x-quota-used')).toBeNull();
          const reasons = expected[n]![name as keyof typeof policies]!;
          expect(answer.body.decision_reasons, `0x…${n} ${name}`).toEqual(reasons);
          expect(answer.body.decision).toBe(reasons.length === 0 || reasons[0] === 'no_policy_applied' ? 'allow' : 'deny');
          expect('verify_url' in answer.body, `0x…${n} ${name}`).toBe(reasons.includes('kyc_required'));
          if (policy) expect(answer.body.explanation).toHaveLength(Object.keys(policy).length);
          // Spec 2.2's shape: a verified fixture has its verification and screening times.
          const verification = answer.body.operator_verification;
          if (n === 2) expect(verification).toEqual({ kyc_status: 'none' });
          else expect(verification).toMatchObject({ kyc_status: 'verified', kyc_verified_at: expect.any(String), sanctions_checked_at: expect.any(String), sanctions_clear: n !== 3 });
        }
      }
      expect(await count()).toEqual(before);
      // The test verify_url is a page that says so.
      const url = (await assess({ address: reserved(2), policy: { require_kyc: true }, test: true })).body.verify_url;
      expect(await (await fetch(url, { headers: client() })).text()).toContain('test mode');
    });

    it('is free of the rate limit and the quota: 30 calls in one second on a 10-per-second plan', async () => {
      const answers = await Promise.all(Array.from({ length: 30 }, () => assess({ address: reserved(1), test: true }, keys.starter)));
      expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    });

    it('runs the real signer checks: a listed signer denies', async () => {
      const answer = await assess({ address: reserved(1), test: true, signer: { address: listedEth, network: 'evm' } });
      expect(answer.body).toMatchObject({ decision: 'deny', decision_reasons: ['sanctions_flagged'], signer_sanctions: { status: 'clear', sanctioned: true, sdn_uid: '27307' } });
    });
  });

  describe('live: wallets', () => {
    it('an unknown wallet without a policy: allow, no_policy_applied; its scoring is queued (a minimal entry)', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
      const answer = await assess({ address: wallet });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        decision: 'allow',
        decision_reasons: ['no_policy_applied'],
        operator_verification: { kyc_status: 'none' },
        identity_method: 'wallet',
        resolved_operator: wallet,
        linked_wallets: [wallet],
      });
      expect(answer.headers.get('x-quota-used')).toMatch(/^\d+$/);
      await expect.poll(async () => (await server.store.read('SELECT count(*)::INTEGER AS n FROM known_addresses WHERE address = $1', [wallet]))[0]!.n).toBe(1);
      await expect.poll(async () => (await call(server.url, 'GET', `/v1/reputation/${wallet}`, { key: keys.pro })).status).toBe(200);
    });

    it('a wallet with a record gets no entry and no scoring; refresh: true rescores it (spec 3.3)', async () => {
      await importFile({ store: server.store, log: silentLogger }, { file: path.join(repoRoot, 'test/fixtures/import/transfers.csv'), kind: 'transfers', onBadRows: 'skip' });
      await (await server.jobs.run('score', {})).done;
      // A payee of that file, scored by the run.
      const payee = '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c';
      expect(await isKnownAddress(server.store, payee)).toBe(true);
      expect(await isKnownAddress(server.store, privateKeyToAccount(generatePrivateKey()).address.toLowerCase())).toBe(false);
      const count = async (sql: string) => (await server.store.read(sql, [payee]))[0]!.n;
      const scoreRuns = () => count(`SELECT count(*)::INTEGER AS n FROM job_runs WHERE job_name = 'score' AND json_extract_string(job_data, '$.address') = $1 AND state = 'completed'`);
      expect((await assess({ address: payee })).status).toBe(200);
      expect((await assess({ address: payee, refresh: true })).status).toBe(200);
      await expect.poll(scoreRuns).toBe(1);
      // The rescoring run enters it as any `score --address` run does ('cli'); assess did not ('assess').
      expect(await count(`SELECT count(*)::INTEGER AS n FROM known_addresses WHERE address = $1 AND source = 'assess'`)).toBe(0);
    });

    it('an unverified wallet under require_kyc: deny kyc_required with a verify_url whose session a person can complete', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey()).address;
      const answer = await assess({ address: wallet, policy: { require_kyc: true } });
      expect(answer.body).toMatchObject({
        decision: 'deny',
        decision_reasons: ['kyc_required'],
        policy_result: { satisfied: false, rules_evaluated: 1, rules_failed: ['require_kyc'] },
        explanation: [{ rule: 'require_kyc', passed: false, required: 'verified', actual: 'none', how_to_remedy: expect.any(String) }],
        verify_url: expect.stringMatching(/\/verify\/sess_/),
        verification_session: { session_id: expect.stringMatching(/^sess_/), poll_secret: expect.stringMatching(/^pls_/), poll_url: expect.any(String) },
      });
      const session = answer.body.verification_session;
      expect(answer.body.verify_url).toBe(session.verify_url);
      await submitSandbox(session.verify_url, clearPerson);
      expect((await poll(session.poll_url, session.poll_secret, client())).body.status).toBe('verified');
    });

    it('a wallet claimed by a verified holder: allow under a full policy, with the operator\'s facts and linked wallets', async () => {
      const holder = await createAccount(server.store, { plan: 'pro' }, server.keys);
      const wallet = await claimFreshWallet(server.url, holder.api_key);
      // Claimed but the holder not verified: the policy needs a verification.
      expect((await assess({ address: wallet, policy: { require_kyc: true } })).body.decision_reasons).toEqual(['kyc_required']);
      const refused = await call(server.url, 'POST', '/v1/credentials', { key: holder.api_key, body: {} });
      // A verification under way: kyc_pending, no verify_url.
      const pending = await assess({ address: wallet, policy: { require_kyc: true } });
      expect(pending.body.decision_reasons).toEqual(['kyc_pending']);
      expect(pending.body.verify_url).toBeUndefined();
      await submitSandbox(refused.body.verify_url, { outcome: 'verified', jurisdiction: 'US', age: '21+', name: 'Rosalind Tremaine' });
      // Claimed later: the first claimed wallet stays the resolved operator.
      clock += 1_000;
      const second = await claimFreshWallet(server.url, holder.api_key);
      const answer = await assess({ address: wallet, policy: { require_kyc: true, require_sanctions_clear: true, min_age: 21, blocked_jurisdictions: ['IR'], allowed_jurisdictions: ['US'] } });
      expect(answer.body).toMatchObject({
        decision: 'allow',
        decision_reasons: [],
        policy_result: { satisfied: true, rules_evaluated: 5, rules_failed: [] },
        operator_verification: { kyc_status: 'verified', jurisdiction: 'US', age_verified: true, age_bracket: '21+', sanctions_clear: true, operator_type: 'individual' },
        identity_method: 'wallet',
        resolved_operator: wallet,
        linked_wallets: [wallet, second].sort(),
      });
      expect(answer.body.explanation.map((e: { actual: string }) => e.actual)).toEqual(['verified', 'clear', '21+', 'US', 'US']);
      // 91 days later the screening is stale: kyc_required, actual unscreened.
      clock += 91 * day;
      const stale = await assess({ address: wallet, policy: { require_sanctions_clear: true } });
      expect(stale.body.decision_reasons).toEqual(['kyc_required']);
      expect(stale.body.explanation[0].actual).toBe('unscreened');
      clock -= 91 * day;
    });
  });

  describe('live: what verifying cannot fix, sessions of one identity, paths', () => {
    it('no verify_url when a reason verifying cannot lift comes with kyc_required (a listed signer)', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey()).address;
      const answer = await assess({ address: wallet, policy: { require_kyc: true }, signer: { address: listedEth, network: 'evm' } });
      expect(answer.body.decision_reasons).toEqual(['kyc_required', 'sanctions_flagged']);
      expect(answer.body.verify_url).toBeUndefined();
      expect(answer.body.verification_session).toBeUndefined();
    });

    it('every denial gets a session of its own, written only once its page is used', async () => {
      const wallet = privateKeyToAccount(generatePrivateKey()).address;
      const sessionOf = async () => (await assess({ address: wallet, policy: { require_kyc: true } })).body.verification_session;
      const rows = async () => Number((await server.store.read('SELECT count(*)::INTEGER AS n FROM verification_sessions'))[0]!.n);
      const before = await rows();
      // The buyer's own denial, then someone else naming the same wallet at the same merchant.
      const buyer = await sessionOf();
      const other = await sessionOf();
      expect(other.session_id).not.toBe(buyer.session_id);
      expect(other.poll_secret).not.toBe(buyer.poll_secret);
      expect(await rows()).toBe(before);
      // Unwritten, each polls as pending with its own secret only; a wrong secret and a forged id
      // get the answer of an unknown session.
      expect((await poll(buyer.poll_url, buyer.poll_secret, client())).body).toMatchObject({ status: 'pending', session_id: buyer.session_id });
      const unknown = await poll(`${server.url}/v1/sessions/sess_nosuchsession`, buyer.poll_secret, client());
      expect(unknown.status).toBe(401);
      expect((await poll(buyer.poll_url, other.poll_secret, client())).body).toEqual(unknown.body);
      const forged = `${buyer.session_id.slice(0, -2)}${buyer.session_id.endsWith('AA') ? 'AB' : 'AA'}`;
      expect((await poll(`${server.url}/v1/sessions/${forged}`, buyer.poll_secret, client())).body).toEqual(unknown.body);
      // The page shows the merchant; the buyer verifies there: the row is written, the token goes to
      // the buyer's poll once, and the other session stays pending, unwritten.
      expect(await (await fetch(buyer.verify_url, { headers: client() })).text()).toContain('Pro Shop');
      await submitSandbox(buyer.verify_url, clearPerson, client());
      expect(await rows()).toBe(before + 1);
      expect((await poll(buyer.poll_url, buyer.poll_secret, client())).body).toMatchObject({ status: 'verified', operator_token: expect.stringMatching(/^opc_/) });
      expect((await poll(buyer.poll_url, buyer.poll_secret, client())).body.status).toBe('consumed');
      expect((await poll(other.poll_url, other.poll_secret, client())).body.status).toBe('pending');
      // An hour later the unused one is expired, still unwritten.
      clock += 3_600_000;
      expect((await poll(other.poll_url, other.poll_secret, client())).body.status).toBe('expired');
      expect(await rows()).toBe(before + 1);
    });

    it('a name the screening matched (wallet mode, unreviewed): sanctions_flagged, no verify_url', async () => {
      const holder = await createAccount(server.store, { plan: 'pro' }, server.keys);
      const wallet = await claimFreshWallet(server.url, holder.api_key);
      const refused = await call(server.url, 'POST', '/v1/credentials', { key: holder.api_key, body: {} });
      await submitSandbox(refused.body.verify_url, { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'Daniel Moreno' });
      const answer = await assess({ address: wallet, policy: { require_sanctions_clear: true } });
      expect(answer.body).toMatchObject({ decision: 'deny', decision_reasons: ['sanctions_flagged'], explanation: [{ actual: 'flagged', how_to_remedy: null }] });
      expect(answer.body.verify_url).toBeUndefined();
    });

    it('the path in another case or with a trailing slash is the same route: no 500, test mode free of the limit', async () => {
      for (const route of ['/v1/assess/', '/v1/ASSESS', '/V1/Assess']) {
        clock += 1_000;
        const live = await call(server.url, 'POST', route, { key: keys.pro, body: { address: reserved(1) } });
        expect([route, live.status]).toEqual([route, 200]);
      }
      const answers = await Promise.all(Array.from({ length: 15 }, () => call(server.url, 'POST', '/v1/assess/', { key: keys.starter, body: { address: reserved(1), test: true } })));
      expect(answers.map((a) => a.status)).toEqual(Array(15).fill(200));
    });

    it('a live call takes the key\'s rate limit once (starter: 10 a second), the 429 with the quota headers', async () => {
      clock = Math.ceil(clock / 1_000) * 1_000 + 1_000;
      const answers = await Promise.all(Array.from({ length: 11 }, () => assess({ address: reserved(1) }, keys.starter)));
      const refused = answers.filter((a) => a.status === 429);
      expect(refused).toHaveLength(1);
      expect(refused[0]!.body.error.code).toBe('rate_limited');
      expect(refused[0]!.headers.get('x-quota-used')).toMatch(/^\d+$/);
    });
  });

  describe('live: operator tokens', () => {
    it('an active token: its operator decides; expired: 401 token_expired with a session; unknown: 401 invalid_credential without one', async () => {
      const login = await verifiedLogin(server.url, keys.pro, { outcome: 'verified', jurisdiction: 'US', age: '18+', name: 'Evander Quill' }, client());
      const allow = await assess({ operator_token: login.operatorToken, policy: { require_kyc: true, min_age: 18 } });
      expect(allow.body).toMatchObject({ decision: 'allow', identity_method: 'operator_token', operator_verification: { age_bracket: '18+' } });
      expect(allow.body.resolved_operator).toBeUndefined();
      // When the token expires (24 h after its poll): a gate keeps the allow no longer.
      expect(Date.parse(allow.body.credential_expires_at) - clock).toBeGreaterThan(day - 60_000);
      expect(Date.parse(allow.body.credential_expires_at) - clock).toBeLessThanOrEqual(day);
      const young = await assess({ operator_token: login.operatorToken, policy: { min_age: 21 } });
      expect(young.body).toMatchObject({ decision: 'deny', decision_reasons: ['age_insufficient'] });
      expect(young.body.verify_url).toBeUndefined();
      expect(young.body.explanation[0].how_to_remedy).toBeNull();
      clock += day;
      const expired = await assess({ operator_token: login.operatorToken });
      expect(expired.status).toBe(401);
      expect(expired.body.error).toMatchObject({ code: 'token_expired', session_id: expect.stringMatching(/^sess_/), poll_secret: expect.stringMatching(/^pls_/), verify_url: expect.any(String), poll_url: expect.any(String) });
      const unknown = await assess({ operator_token: 'opc_unknownunknownunknownunknownunkn' });
      expect([unknown.status, unknown.body.error.code]).toEqual([401, 'invalid_credential']);
      expect(unknown.body.error.session_id).toBeUndefined();
    });

    it('a sanctions hit on the operator: sanctions_flagged, no verify_url', async () => {
      const session = (await call(server.url, 'POST', '/v1/sessions', { key: keys.pro, body: {} })).body;
      await submitSandbox(session.verify_url, { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'Daniel Moreno' });
      const reviewed = await server.identity.review(session.session_id, 'cleared');
      expect(reviewed.stored).toBe('verified');
      const token = (await poll(session.poll_url, session.poll_secret, client())).body.operator_token;
      // Cleared by a review: clear now.
      expect((await assess({ operator_token: token, policy: { require_sanctions_clear: true } })).body.decision).toBe('allow');
    });
  });

  describe('signer checks', () => {
    let login: { operatorToken: string };
    let walletA: string;
    let walletB: string;
    beforeAll(async () => {
      login = await verifiedLogin(server.url, keys.pro, clearPerson, client());
      walletA = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
      walletB = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
      for (const wallet of [walletA, walletB]) {
        const captured = await call(server.url, 'POST', '/v1/credentials/wallets', { key: keys.pro, body: { operator_token: login.operatorToken, wallet_address: wallet, network: 'evm' } });
        expect(captured.status).toBe(200);
      }
    });

    it('pass: byte-equal (any case), or another wallet of the same person', async () => {
      const same = await assess({ address: walletA, signer: { address: walletA.toUpperCase().replace('0X', '0x'), network: 'evm' } });
      expect(same.body.signer_match).toEqual({ kind: 'pass', claimed_operator: [walletA, walletB].sort()[0], signer_operator: [walletA, walletB].sort()[0] });
      expect(same.body.signer_sanctions).toEqual({ status: 'clear' });
      expect((await assess({ address: walletA, signer: { address: walletB, network: 'evm' } })).body.signer_match.kind).toBe('pass');
      expect((await assess({ operator_token: login.operatorToken, signer: { address: walletB, network: 'evm' } })).body.signer_match.kind).toBe('pass');
    });

    it('wallet_signer_mismatch: another person\'s wallet signed, with its fields and agent_instructions', async () => {
      const stranger = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
      const answer = await assess({ address: walletA, signer: { address: stranger, network: 'evm' } });
      expect(answer.body.signer_match).toEqual({
        kind: 'wallet_signer_mismatch',
        claimed_operator: [walletA, walletB].sort()[0],
        signer_operator: null,
        expected_signer: walletA,
        actual_signer: stranger,
        linked_wallets: [walletA, walletB].sort(),
        agent_instructions: expect.any(String),
      });
      expect(JSON.parse(answer.body.signer_match.agent_instructions)).toMatchObject({ action: 'resign_or_switch_to_operator_token', steps: expect.any(Array), user_message: expect.any(String) });
      // The decision is the policy's: the gate acts on signer_match.
      expect(answer.body.decision).toBe('allow');
    });

    it('an operator token on a rail without a wallet signature passes the signer match (what tokens are for)', async () => {
      const answer = await assess({ operator_token: login.operatorToken, signer: { address: null, network: 'evm' } });
      expect(answer.body.signer_match).toMatchObject({ kind: 'pass', signer_operator: null });
      expect(answer.body.signer_sanctions).toBeUndefined();
    });

    it('wallet_auth_requires_wallet_signing: a wallet on a rail without a wallet signature', async () => {
      const answer = await assess({ address: walletA, signer: { address: null, network: 'evm' } });
      expect(answer.body.signer_match).toMatchObject({ kind: 'wallet_auth_requires_wallet_signing', signer_operator: null });
      expect(JSON.parse(answer.body.signer_match.agent_instructions).action).toBe('switch_to_operator_token');
      expect(answer.body.signer_sanctions).toBeUndefined();
    });

    it('a listed signer (SDN 27307): deny sanctions_flagged, no opt-out, with its listing', async () => {
      const answer = await assess({ address: walletA, signer: { address: listedEth, network: 'evm' } });
      expect(answer.body).toMatchObject({
        decision: 'deny',
        decision_reasons: ['sanctions_flagged'],
        signer_sanctions: { status: 'clear', sanctioned: true, ofac_label: 'ETH', sdn_uid: '27307', listed_at: '2022-04-14' },
      });
      expect(answer.body.verify_url).toBeUndefined();
    });

    it('a list not confirmed within SANCTIONS_LIST_MAX_AGE_HOURS (48): unavailable, deny sanctions_check_unavailable', async () => {
      const saved = clock;
      clock = Date.now() + 49 * 3_600_000;
      const answer = await assess({ address: walletA, signer: { address: walletB, network: 'evm' } });
      clock = saved;
      expect(answer.body).toMatchObject({ decision: 'deny', decision_reasons: ['sanctions_check_unavailable'], signer_sanctions: { status: 'unavailable' } });
    });
  });

  describe('the audit trail', () => {
    it('records each live decision with the token id, never the token; test mode is not recorded', async () => {
      const login = await verifiedLogin(server.url, keys.pro, clearPerson, client());
      const requestIds: string[] = [];
      const live = await assess({ operator_token: login.operatorToken, policy: { require_kyc: true }, signer: { address: listedEth, network: 'evm' } });
      requestIds.push(live.headers.get('x-request-id')!);
      const test = await assess({ address: reserved(1), test: true });
      await server.audit.flush();
      const rows = await server.store.read('SELECT request_id, identity_kind, identity, decision, reasons, policy_hash, signer_match, signer_sanctions FROM assessments WHERE request_id IN ($1, $2)', [
        requestIds[0]!,
        test.headers.get('x-request-id')!,
      ]);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ identity_kind: 'operator_token', decision: 'deny', reasons: ['sanctions_flagged'], signer_match: 'pass', signer_sanctions: 'sanctioned', policy_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(String(rows[0]!.identity)).not.toContain('opc_');
      // A token that is none of ours is recorded too, as `unknown`.
      const unknown = await assess({ operator_token: 'opc_unknownunknownunknownunknownunkn' });
      await server.audit.flush();
      const [row] = await server.store.read('SELECT identity, decision, reasons FROM assessments WHERE request_id = $1', [unknown.headers.get('x-request-id')!]);
      expect(row).toEqual({ identity: 'unknown', decision: 'deny', reasons: ['invalid_credential'] });
    });
  });

  describe('quota headers', () => {
    it('a plan with a quota gets X-Quota-* on a live call, not on a test one', async () => {
      const live = await assess({ address: reserved(1) }, keys.starter);
      expect(live.status).toBe(200);
      expect(live.headers.get('x-quota-limit')).toBe('100000');
      expect(Number(live.headers.get('x-quota-used'))).toBeGreaterThan(0);
      expect(live.headers.get('x-quota-reset')).toMatch(/^\d{4}-/);
    });
  });
});

describe('POST /v1/assess with no sanctions list loaded', () => {
  const dataDir = tempDataDir('assess-unlisted');
  let server: RunningServer;
  let key: string;
  beforeAll(async () => {
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger);
    key = (await createAccount(server.store, { plan: 'pro' }, server.keys)).api_key;
  });
  afterAll(() => server?.close());

  it('fails closed: a signer check that cannot answer denies for sanctions_check_unavailable', async () => {
    const answer = await call(server.url, 'POST', '/v1/assess', { key, body: { address: reserved(1), signer: { address: reserved(1), network: 'evm' } } });
    expect(answer.body).toMatchObject({ decision: 'deny', decision_reasons: ['sanctions_check_unavailable'], signer_sanctions: { status: 'unavailable' } });
  });
});
