// Operator credentials, wallet capture, refresh tokens and the verification level over real HTTP
// (spec 2.1, 2.2, 2.7, 3.2, 3.4, 4.5-4.8, 7.1): every field rule and error code, the account
// holder's own verification through the verify page, credentials of two accounts apart, live
// acceptance, rotation with reuse detection, and a level that shows on the next lookup.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import path from 'node:path';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { tempDataDir } from './helpers/temp.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { OperatorIndex } from '../identity/operators.ts';
import { cliEnv, repoRoot, runCli } from './helpers/cli.ts';
import { call, claimFreshWallet, clearPerson, poll, sdnTinyCsv, submitSandbox, verifiedLogin, type Answer } from './helpers/identity.ts';

const day = 86_400_000;
// From test/fixtures/import/transfers.csv: paid through a facilitator, so scored.
const payee = '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c';
const solanaWallet = 'awF1tyZBDfKCYFYkyrsjVbDSdiduVJECqra5UrUTQCh';

describe('credentials, wallet capture and refresh tokens', () => {
  const dataDir = tempDataDir('identity-credentials');
  let server: RunningServer;
  let clock = Date.parse('2026-06-01T12:00:00Z');
  let ip = 0;
  const client = () => ({ 'X-Forwarded-For': `192.0.2.${(++ip % 250) + 1}` });
  const accounts: Record<'free' | 'pro' | 'other' | 'merchant', { id: string; api_key: string }> = {} as never;

  beforeAll(async () => {
    const imported = await runCli(['import', path.join(repoRoot, 'test/fixtures/import/transfers.csv'), '--kind', 'transfers'], cliEnv(dataDir));
    expect(imported.code).toBe(0);
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', SANCTIONS_LIST_SOURCE: sdnTinyCsv, TRUST_PROXY_HOPS: '1' }), silentLogger, { now: () => new Date(clock) });
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    await (await server.jobs.run('score', {})).done;
    accounts.free = await createAccount(server.store, { plan: 'free' }, server.keys);
    accounts.pro = await createAccount(server.store, { plan: 'pro', name: 'Holder One' }, server.keys);
    accounts.other = await createAccount(server.store, { plan: 'growth', name: 'Holder Two' }, server.keys);
    accounts.merchant = await createAccount(server.store, { plan: 'starter', name: 'Merchant' }, server.keys);
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    clock += 1_000;
  });

  const api = (key: string, method: string, route: string, body?: unknown): Promise<Answer> => call(server.url, method, route, { key, body });

  /** The account holder verifies through the 409's verify_url, as a person would. */
  async function verifyHolder(key: string, person = clearPerson): Promise<void> {
    const refused = await api(key, 'POST', '/v1/credentials', {});
    expect(refused.status).toBe(409);
    const done = await submitSandbox(refused.body.verify_url, person);
    expect(done.status).toBe(303);
  }

  /** A verified holder with a credential of a year, and another account that assesses it. */
  async function holderWithCredential(name: string): Promise<{ holder: { id: string; api_key: string }; assessor: { api_key: string }; credential: string; verifiedAt: number }> {
    const holder = await createAccount(server.store, { plan: 'scale', name }, server.keys);
    const assessor = await createAccount(server.store, { plan: 'scale', name: `Assessor of ${name}` }, server.keys);
    await verifyHolder(holder.api_key);
    const verifiedAt = clock;
    const credential = (await api(holder.api_key, 'POST', '/v1/credentials', { label: 'long-lived', ttl_days: 365 })).body.credential as string;
    return { holder, assessor, credential, verifiedAt };
  }

  describe('POST, GET, DELETE /v1/credentials', () => {
    it('are refused to the free plan (402) and without a key (401)', async () => {
      for (const [method, route] of [['POST', '/v1/credentials'], ['GET', '/v1/credentials'], ['DELETE', '/v1/credentials/x']] as const) {
        // The free plan takes one request a second.
        clock += 1_000;
        const answer = await api(accounts.free.api_key, method, route, method === 'POST' ? {} : undefined);
        expect([answer.status, answer.body.error.code], `${method} ${route}`).toEqual([402, 'payment_required']);
        expect((await api('', method, route)).body.error.code).toBe('signup_required');
      }
    });

    it('before the holder verified: account_verification is only kyc_status none, and creation is 409 with a verify_url beside the error', async () => {
      expect((await api(accounts.pro.api_key, 'GET', '/v1/credentials')).body).toEqual({ account_verification: { kyc_status: 'none' }, credentials: [] });
      const refused = await api(accounts.pro.api_key, 'POST', '/v1/credentials', { label: 'bot' });
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        error: { code: 'kyc_required', message: expect.any(String) },
        verify_url: expect.stringMatching(new RegExp(`^${server.url}/verify/sess_`)),
        next_steps: { action: 'complete_kyc_then_retry', user_message: expect.stringContaining(refused.body.verify_url) },
      });
      // Asking again gives the same open verification, not a new one.
      expect((await api(accounts.pro.api_key, 'POST', '/v1/credentials', {})).body.verify_url).toBe(refused.body.verify_url);
      const page = await (await fetch(refused.body.verify_url, { headers: client() })).text();
      expect(page).toContain('Holder One');
    });

    it('after the holder verified on the page: account_verification of spec 2.2, and a credential shown once', async () => {
      await verifyHolder(accounts.pro.api_key, { outcome: 'verified', jurisdiction: 'DE', age: '21+', name: 'Henrike Albers' });
      const listed = await api(accounts.pro.api_key, 'GET', '/v1/credentials');
      expect(listed.body).toEqual({
        account_verification: {
          kyc_status: 'verified',
          kyc_verified_at: new Date(clock).toISOString(),
          jurisdiction: 'DE',
          age_verified: true,
          age_bracket: '21+',
          sanctions_clear: true,
          sanctions_checked_at: new Date(clock).toISOString(),
          operator_type: 'individual',
        },
        credentials: [],
      });
      const created = await api(accounts.pro.api_key, 'POST', '/v1/credentials', { label: 'research bot', ttl_days: 30 });
      expect(created.status).toBe(200);
      expect(created.headers.get('cache-control')).toBe('no-store');
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        credential: expect.stringMatching(/^opc_[A-Za-z0-9]{32}$/),
        prefix: created.body.credential.slice(0, 8),
        label: 'research bot',
        expires_at: new Date(clock + 30 * day).toISOString(),
        created_at: new Date(clock).toISOString(),
        agent_memory: expect.objectContaining({ identity_check_endpoint: server.url, do_not_persist_in_memory: ['operator_token', 'poll_secret', 'refresh_token'] }),
      });
      // Listed without its value, newest first; a default credential lives one day and has no label.
      clock += 1_000;
      const plain = await api(accounts.pro.api_key, 'POST', '/v1/credentials');
      expect(plain.body).toMatchObject({ label: null, expires_at: new Date(clock + day).toISOString() });
      const after = await api(accounts.pro.api_key, 'GET', '/v1/credentials');
      expect(after.body.credentials).toEqual([
        { id: plain.body.id, prefix: plain.body.prefix, label: null, expires_at: plain.body.expires_at, last_used_at: null, created_at: plain.body.created_at },
        { id: created.body.id, prefix: created.body.prefix, label: 'research bot', expires_at: created.body.expires_at, last_used_at: null, created_at: created.body.created_at },
      ]);
      expect(JSON.stringify(after.body)).not.toContain(created.body.credential);
    });

    it.each([
      [{ label: 'x'.repeat(101) }, /label is at most 100 characters/],
      [{ label: 5 }, /label must be a string/],
      [{ ttl_days: 0 }, /ttl_days must be at least 1/],
      [{ ttl_days: 366 }, /ttl_days must be at most 365/],
      [{ ttl_days: 1.5 }, /ttl_days must be a whole number/],
      [{ ttl_days: '5' }, /ttl_days must be a whole number/],
      [{ scope: 'all' }, /^scope: not a field of this request/],
    ])('refuses %j with 400 bad_request naming the field', async (body, message) => {
      const answer = await api(accounts.pro.api_key, 'POST', '/v1/credentials', body);
      expect([answer.status, answer.body.error.code]).toEqual([400, 'bad_request']);
      expect(answer.body.error.message).toMatch(message);
    });

    it('takes the bounds: a label of 100 characters, 1 and 365 days', async () => {
      expect((await api(accounts.pro.api_key, 'POST', '/v1/credentials', { label: 'x'.repeat(100), ttl_days: 365 })).status).toBe(200);
      expect((await api(accounts.pro.api_key, 'POST', '/v1/credentials', { ttl_days: 1 })).status).toBe(200);
    });

    it('keeps two accounts apart: neither lists nor revokes the other\'s credentials (404)', async () => {
      await verifyHolder(accounts.other.api_key);
      const mine = (await api(accounts.other.api_key, 'POST', '/v1/credentials', { label: 'theirs' })).body;
      const proList = (await api(accounts.pro.api_key, 'GET', '/v1/credentials')).body.credentials;
      expect(proList.map((c: { id: string }) => c.id)).not.toContain(mine.id);
      const foreign = await api(accounts.pro.api_key, 'DELETE', `/v1/credentials/${mine.id}`);
      expect([foreign.status, foreign.body.error.code]).toEqual([404, 'not_found']);
      expect((await api(accounts.other.api_key, 'GET', '/v1/credentials')).body.credentials.map((c: { id: string }) => c.id)).toEqual([mine.id]);
    });

    it('revokes: {id, revoked: true}, then gone from the list, a second revoke and an unknown id 404', async () => {
      const created = (await api(accounts.pro.api_key, 'POST', '/v1/credentials', { label: 'short-lived' })).body;
      const revoked = await api(accounts.pro.api_key, 'DELETE', `/v1/credentials/${created.id}`);
      expect([revoked.status, revoked.body]).toEqual([200, { id: created.id, revoked: true }]);
      const ids = (await api(accounts.pro.api_key, 'GET', '/v1/credentials')).body.credentials.map((c: { id: string }) => c.id);
      expect(ids).not.toContain(created.id);
      expect((await api(accounts.pro.api_key, 'DELETE', `/v1/credentials/${created.id}`)).status).toBe(404);
      expect((await api(accounts.pro.api_key, 'DELETE', '/v1/credentials/00000000-0000-4000-8000-000000000000')).status).toBe(404);
      // Revoked means refused where it is used: a capture answers invalid_credential.
      const capture = await api(accounts.merchant.api_key, 'POST', '/v1/credentials/wallets', { operator_token: created.credential, wallet_address: payee, network: 'evm' });
      expect([capture.status, capture.body.error.code]).toEqual([401, 'invalid_credential']);
    });

    it('lists only active credentials: an expired one drops out', async () => {
      const short = (await api(accounts.other.api_key, 'POST', '/v1/credentials', { label: 'one day' })).body;
      clock += day;
      const ids = (await api(accounts.other.api_key, 'GET', '/v1/credentials')).body.credentials.map((c: { id: string }) => c.id);
      expect(ids).not.toContain(short.id);
    });

    it('sanctions_clear: true up to the freshness window (90 days), null after it', async () => {
      const holder = await createAccount(server.store, { plan: 'scale' }, server.keys);
      await verifyHolder(holder.api_key);
      const verifiedAt = clock;
      const clear = async (at: number) => {
        clock = at;
        return (await api(holder.api_key, 'GET', '/v1/credentials')).body.account_verification.sanctions_clear;
      };
      expect(await clear(verifiedAt + 89 * day)).toBe(true);
      expect(await clear(verifiedAt + 90 * day)).toBe(true);
      expect(await clear(verifiedAt + 91 * day)).toBeNull();
      clock = verifiedAt + 1_000;
    });

    it('a stale screening: creation is 409 kyc_required with a verify_url; verifying there renews every credential of the account, and the wallets they captured', async () => {
      const { holder, assessor, credential, verifiedAt } = await holderWithCredential('Stale Holder');
      const wallet = `0x${'a1'.repeat(20)}`;
      expect((await api(accounts.merchant.api_key, 'POST', '/v1/credentials/wallets', { operator_token: credential, wallet_address: wallet, network: 'evm' })).body.associated).toBe(true);
      const policy = { require_sanctions_clear: true };
      const decisions = async () => {
        const byToken = (await api(assessor.api_key, 'POST', '/v1/assess', { operator_token: credential, policy })).body;
        const byWallet = (await api(assessor.api_key, 'POST', '/v1/assess', { address: wallet, policy })).body;
        return [byToken.decision, byToken.decision_reasons, byWallet.decision, byWallet.decision_reasons];
      };
      expect(await decisions()).toEqual(['allow', [], 'allow', []]);

      clock = verifiedAt + 91 * day;
      expect(await decisions()).toEqual(['deny', ['kyc_required'], 'deny', ['kyc_required']]);
      const refused = await api(holder.api_key, 'POST', '/v1/credentials', {});
      expect([refused.status, refused.body.error.code, refused.body.next_steps.action]).toEqual([409, 'kyc_required', 'complete_kyc_then_retry']);
      expect(refused.body.error.message).toContain('older than the freshness window');
      expect((await submitSandbox(refused.body.verify_url, { ...clearPerson, name: 'Margaret Whitfield-Ames' })).status).toBe(303);

      // The credential made before speaks for the holder's new verification, and so does its capture.
      expect(await decisions()).toEqual(['allow', [], 'allow', []]);
      const listed = (await api(holder.api_key, 'GET', '/v1/credentials')).body;
      expect(listed.account_verification.sanctions_clear).toBe(true);
      expect(listed.credentials.map((c: { label: string }) => c.label)).toEqual(['long-lived']);
      expect((await api(holder.api_key, 'POST', '/v1/credentials', {})).status).toBe(200);
      clock = verifiedAt + 1_000;
    });

    it('a re-verification flagged for a review leaves the credentials as they were; clearing it moves them, confirming it denies them; memory and the store agree', async () => {
      const policy = { require_sanctions_clear: true };
      const { holder, assessor, credential, verifiedAt } = await holderWithCredential('Twice Verified');
      const claimed = await claimFreshWallet(server.url, holder.api_key);
      // [jurisdiction, reasons] of the credential and of the holder's claimed wallet, as assess sees them.
      const seen = async (identity: Record<string, string>) => {
        const body = (await api(assessor.api_key, 'POST', '/v1/assess', { ...identity, policy })).body;
        return [body.operator_verification.jurisdiction, body.decision_reasons];
      };
      const levelOfClaimed = () => server.identity.deps.state.wallets.verificationLevel(claimed);
      expect([await seen({ operator_token: credential }), await seen({ address: claimed }), levelOfClaimed()]).toEqual([['US', []], ['US', []], 'kyc_verified']);

      clock = verifiedAt + 91 * day;
      const refused = await api(holder.api_key, 'POST', '/v1/credentials', {});
      await submitSandbox(refused.body.verify_url, { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'Daniel Moreno' });
      // Flagged, waiting for a review: the credential keeps the clear verification (stale by now:
      // kyc_required); the claimed wallet, public, follows the newest: flagged, and not kyc_verified.
      expect((await api(holder.api_key, 'POST', '/v1/credentials', {})).body.next_steps.action).toBe('contact_support');
      expect([await seen({ operator_token: credential }), await seen({ address: claimed }), levelOfClaimed()]).toEqual([['US', ['kyc_required']], ['BZ', ['sanctions_flagged']], 'wallet_claimed']);
      const flaggedSession = new URL(refused.body.verify_url).pathname.split('/').at(-1)!;
      expect((await runCli(['operators', 'review', flaggedSession, '--clear'], cliEnv(dataDir))).code).toBe(0);
      expect([await seen({ operator_token: credential }), await seen({ address: claimed }), levelOfClaimed()]).toEqual([['BZ', []], ['BZ', []], 'kyc_verified']);

      // What a restart would load is what memory holds.
      const stored = (await server.store.read(sqlFile('identity/account_operators'))).filter((r) => r.account_id === holder.id);
      expect(stored.at(-1)!.operator_id).toBe(server.identity.deps.state.wallets.operatorOfAccount(holder.id));
      clock = verifiedAt + 1_000;
    });

    it('a re-verification whose match a review confirms denies every credential of the account (sanctions_flagged)', async () => {
      const { holder, assessor, credential, verifiedAt } = await holderWithCredential('Confirmed Holder');
      clock = verifiedAt + 91 * day;
      const refused = await api(holder.api_key, 'POST', '/v1/credentials', {});
      await submitSandbox(refused.body.verify_url, { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'Daniel Moreno' });
      const flaggedSession = new URL(refused.body.verify_url).pathname.split('/').at(-1)!;
      expect((await runCli(['operators', 'review', flaggedSession, '--confirm'], cliEnv(dataDir))).code).toBe(0);
      const body = (await api(assessor.api_key, 'POST', '/v1/assess', { operator_token: credential, policy: { require_sanctions_clear: true } })).body;
      expect([body.decision, body.decision_reasons, body.verify_url]).toEqual(['deny', ['sanctions_flagged'], undefined]);
      // A restart loads the review's verdict with the operator.
      const confirmed = server.identity.deps.state.wallets.operatorOfAccount(holder.id)!;
      expect((await OperatorIndex.load(server.store)).get(confirmed)?.reviewConfirmed).toBe(true);
      clock = verifiedAt + 1_000;
    });

    it('a flagged holder verification: sanctions_clear false, and credentials wait for a review (409 with contact_support)', async () => {
      const holder = await createAccount(server.store, { plan: 'scale', name: 'Flagged Holder' }, server.keys);
      await verifyHolder(holder.api_key, { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'Daniel Moreno' });
      expect((await api(holder.api_key, 'GET', '/v1/credentials')).body.account_verification).toMatchObject({ kyc_status: 'verified', sanctions_clear: false });
      const refused = await api(holder.api_key, 'POST', '/v1/credentials', {});
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        error: { code: 'kyc_required', message: expect.stringContaining('manual review') },
        next_steps: { action: 'contact_support', support_email: expect.any(String), support_subject: expect.stringMatching(/^Identity review for verification session sess_/), user_message: expect.any(String) },
      });
      // Once a review confirms the match, the holder is offered a new verification, not a wait.
      const flaggedSession = /session (sess_\S+)$/.exec(refused.body.next_steps.support_subject)![1]!;
      expect((await runCli(['operators', 'review', flaggedSession, '--confirm'], cliEnv(dataDir))).code).toBe(0);
      const after = await api(holder.api_key, 'POST', '/v1/credentials', {});
      expect([after.status, after.body.next_steps.action]).toEqual([409, 'complete_kyc_then_retry']);
      expect(after.body.verify_url).toMatch(/\/verify\/sess_/);
    });

    it('concurrent creations before verification share one verification session', async () => {
      const holder = await createAccount(server.store, { plan: 'pro' }, server.keys);
      const answers = await Promise.all(Array.from({ length: 5 }, () => api(holder.api_key, 'POST', '/v1/credentials', {})));
      expect(new Set(answers.map((a) => a.body.verify_url)).size).toBe(1);
    });
  });

  describe('POST /v1/credentials/wallets', () => {
    // A credential of a year, so that the clock moving on in these tests does not expire it.
    let token: string;
    beforeAll(async () => {
      const holder = await createAccount(server.store, { plan: 'pro', name: 'Capture Holder' }, server.keys);
      await verifyHolder(holder.api_key);
      token = (await api(holder.api_key, 'POST', '/v1/credentials', { label: 'captures', ttl_days: 365 })).body.credential;
    });
    const capture = (body: unknown, key = accounts.merchant.api_key) => api(key, 'POST', '/v1/credentials/wallets', body);

    it.each([
      [{ wallet_address: payee, network: 'evm' }, 'bad_request', /operator_token is required/],
      [{ operator_token: 'opc_x', network: 'evm' }, 'bad_request', /wallet_address is required/],
      [{ operator_token: 'opc_x', wallet_address: payee }, 'bad_request', /network is required/],
      [{ operator_token: 'opc_x', wallet_address: payee, network: 'evm', colour: 1 }, 'bad_request', /^colour: not a field/],
      [{ operator_token: 'opc_x', wallet_address: payee, network: 'bitcoin' }, 'invalid_network', /evm or solana/],
      [{ operator_token: 'opc_x', wallet_address: '0x1234', network: 'evm' }, 'invalid_wallet', /EVM address/],
      [{ operator_token: 'opc_x', wallet_address: `0x${'0'.repeat(40)}`, network: 'evm' }, 'invalid_wallet', /zero address/],
      [{ operator_token: 'opc_x', wallet_address: 'not-base58-0OIl', network: 'solana' }, 'invalid_wallet', /Solana public key/],
      [{ operator_token: 'opc_x', wallet_address: payee, network: 'solana' }, 'invalid_wallet', /Solana public key/],
      [{ operator_token: 'opc_x', wallet_address: solanaWallet, network: 'evm' }, 'invalid_wallet', /EVM address/],
    ])('refuses %j: 400 %s', async (body, code, message) => {
      const answer = await capture(body);
      expect([answer.status, answer.body.error.code]).toEqual([400, code]);
      expect(answer.body.error.message).toMatch(message);
    });

    it('refuses an unknown or expired token with 401 invalid_credential (one answer)', async () => {
      const unknown = await capture({ operator_token: 'opc_unknownunknownunknownunknownunkn', wallet_address: payee, network: 'evm' });
      expect([unknown.status, unknown.body.error.code]).toEqual([401, 'invalid_credential']);
      const short = (await api(accounts.pro.api_key, 'POST', '/v1/credentials', { ttl_days: 1 })).body.credential;
      clock += day;
      const expired = await capture({ operator_token: short, wallet_address: payee, network: 'evm' });
      expect(expired.body).toEqual(unknown.body);
    });

    it('first_seen once per (credential, wallet, network); the newest key dedupes; EVM in any case is one wallet', async () => {
      const wallet = '0xAbCdEf0000000000000000000000000000000001';
      const first = await capture({ operator_token: token, wallet_address: wallet, network: 'evm', idempotency_key: 'pay-1' });
      expect([first.status, first.body]).toEqual([200, { associated: true, first_seen: true }]);
      const again = await capture({ operator_token: token, wallet_address: wallet.toLowerCase(), network: 'evm', idempotency_key: 'pay-1' });
      expect(again.body).toEqual({ associated: true, first_seen: false, deduped: true });
      const second = await capture({ operator_token: token, wallet_address: wallet, network: 'evm', idempotency_key: 'pay-2' });
      expect(second.body).toEqual({ associated: true, first_seen: false });
      // Only the newest key dedupes: pay-1 again is a new capture.
      expect((await capture({ operator_token: token, wallet_address: wallet, network: 'evm', idempotency_key: 'pay-1' })).body).toEqual({ associated: true, first_seen: false });
      expect((await capture({ operator_token: token, wallet_address: wallet, network: 'evm' })).body).toEqual({ associated: true, first_seen: false });
      const tokenId = server.identity.deps.state.tokens.verify(token, new Date(clock));
      expect(tokenId.kind).toBe('active');
      const id = tokenId.kind === 'active' ? tokenId.token.id : '';
      expect(server.identity.deps.state.wallets.transactionCount(id, 'evm', wallet.toLowerCase())).toBe(4);
      const [row] = await server.store.read('SELECT count(*)::INTEGER AS n, min(wallet) AS w FROM wallet_captures WHERE token_id = $1', [id]);
      expect(row).toEqual({ n: 4, w: wallet.toLowerCase() });
    });

    it('cuts an idempotency key at 200 characters: keys equal in their first 200 dedupe', async () => {
      const key = 'k'.repeat(200);
      expect((await capture({ operator_token: token, wallet_address: solanaWallet, network: 'solana', idempotency_key: `${key}A` })).body.first_seen).toBe(true);
      expect((await capture({ operator_token: token, wallet_address: solanaWallet, network: 'solana', idempotency_key: `${key}B` })).body).toEqual({ associated: true, first_seen: false, deduped: true });
      const [row] = await server.store.read('SELECT max(length(idempotency_key))::INTEGER AS longest FROM wallet_captures');
      expect(row!.longest).toBe(200);
    });

    it('does not wait for the main writer (a scoring run holds it for seconds): it has a writer of its own', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let entered!: () => void;
      const holding = new Promise<void>((resolve) => (entered = resolve));
      const scoring = server.store.write(async () => {
        entered();
        await held;
      });
      await holding;
      try {
        const answer = await capture({ operator_token: token, wallet_address: `0x${'c'.repeat(40)}`, network: 'evm' });
        expect([answer.status, answer.body.first_seen]).toEqual([200, true]);
      } finally {
        release();
        await scoring;
      }
    });

    it('is open to every plan, and sets last_used_at of the credential', async () => {
      const credential = (await api(accounts.pro.api_key, 'POST', '/v1/credentials', { label: 'used' })).body;
      const answer = await capture({ operator_token: credential.credential, wallet_address: `0x${'ab'.repeat(20)}`, network: 'evm' }, accounts.free.api_key);
      expect(answer.status).toBe(200);
      const listed = (await api(accounts.pro.api_key, 'GET', '/v1/credentials')).body.credentials.find((c: { id: string }) => c.id === credential.id);
      expect(listed.last_used_at).toBe(new Date(clock).toISOString());
    });
  });

  describe('the verification level of reputation records', () => {
    it('a capture links a wallet but never raises its level: a merchant\'s report is not the wallet\'s signature', async () => {
      const lookup = async () => (await api(accounts.merchant.api_key, 'GET', `/v1/reputation/${payee}`)).body.verification_level;
      expect(await lookup()).toBe('none');
      // A verified holder reports a wallet they do not control, under their own credential.
      const credential = (await api(accounts.pro.api_key, 'POST', '/v1/credentials', { label: 'reporter' })).body;
      expect((await api(accounts.pro.api_key, 'POST', '/v1/credentials/wallets', { operator_token: credential.credential, wallet_address: payee, network: 'evm' })).status).toBe(200);
      expect(await lookup()).toBe('none');
      const linked = server.identity.deps.state.wallets.resolve('evm', payee);
      expect(linked?.operatorId).toBeTruthy();
      await api(accounts.pro.api_key, 'DELETE', `/v1/credentials/${credential.id}`);
      expect(server.identity.deps.state.wallets.resolve('evm', payee)).toBeNull();
    });

    it('a claimed wallet is wallet_claimed, kyc_verified once its account holder verified, on the next lookup (records, batch, view)', async () => {
      const holder = await createAccount(server.store, { plan: 'pro', name: 'Claiming Holder' }, server.keys);
      const wallet = await claimFreshWallet(server.url, holder.api_key);
      // Known to the index (unscored): its record is served, with the level of now.
      await server.store.write((tx) => tx.run(`INSERT INTO known_addresses VALUES ($1, 'evm', 'assess', utc_now())`, [wallet]));
      const level = async () => (await api(accounts.merchant.api_key, 'GET', `/v1/reputation/${wallet}`)).body.verification_level;
      expect(await level()).toBe('wallet_claimed');
      expect(await level()).toBe('wallet_claimed');
      await verifyHolder(holder.api_key);
      expect(await level()).toBe('kyc_verified');
      const full = await call(server.url, 'GET', `/v1/reputation/${wallet}?view=full`, { key: accounts.pro.api_key });
      expect(full.body.identity.verification_level).toBe('kyc_verified');
      const batch = await api(accounts.pro.api_key, 'POST', '/v1/reputation:batch', { addresses: [wallet] });
      expect(batch.body.results[0].record.verification_level).toBe('kyc_verified');
    });

    it('resolves the wallets of one operator together: linked_wallets and the lexically smallest as resolved_operator', async () => {
      const login = await verifiedLogin(server.url, accounts.merchant.api_key, { outcome: 'verified', jurisdiction: 'FR', age: '18+', name: 'Odile Perrin' }, client());
      // A Solana key no other test captured (each wallet belongs to its earliest active capture's operator).
      const solanaKey = 'US517G5965aydkZ46HS38QLi7UQiSojurfbQfKCELFx';
      const wallets = [`0x${'9'.repeat(40)}`, `0x${'1'.repeat(40)}`, solanaKey];
      for (const [i, wallet] of wallets.entries()) {
        const answer = await api(accounts.merchant.api_key, 'POST', '/v1/credentials/wallets', { operator_token: login.operatorToken, wallet_address: wallet, network: i === 2 ? 'solana' : 'evm' });
        expect(answer.status).toBe(200);
      }
      const resolved = server.identity.deps.state.wallets.resolve('evm', `0x${'9'.repeat(40)}`);
      expect(resolved).toMatchObject({ resolvedOperator: `0x${'1'.repeat(40)}`, linkedWallets: [`0x${'1'.repeat(40)}`, `0x${'9'.repeat(40)}`, solanaKey].sort() });
      expect(server.identity.deps.state.wallets.resolve('solana', solanaKey)?.resolvedOperator).toBe(`0x${'1'.repeat(40)}`);
      // The Solana key another operator captured first stays with that operator.
      expect(server.identity.deps.state.wallets.resolve('solana', solanaWallet)?.linkedWallets).not.toContain(`0x${'1'.repeat(40)}`);
    });
    it('keeps a group\'s resolution only until it changes: a new capture, a revoked token, a rolled-back capture', async () => {
      const wallets = server.identity.deps.state.wallets;
      const [kept, added, rolledBack] = ['5', '6', '7'].map((d) => `0x${d.repeat(40)}`) as [string, string, string];
      const holder = await createAccount(server.store, { plan: 'pro', name: 'Memo Holder' }, server.keys);
      await verifyHolder(holder.api_key);
      const credential = async (label: string) => (await api(holder.api_key, 'POST', '/v1/credentials', { label })).body;
      const capture = async (token: string, wallet: string) => expect((await api(accounts.merchant.api_key, 'POST', '/v1/credentials/wallets', { operator_token: token, wallet_address: wallet, network: 'evm' })).status).toBe(200);
      const linked = () => wallets.resolve('evm', kept)?.linkedWallets ?? [];
      const [first, second] = [await credential('memo one'), await credential('memo two')];
      await capture(first.credential, kept);
      expect(linked()).toContain(kept);
      expect(linked()).not.toContain(added);
      await capture(second.credential, added);
      expect(linked()).toContain(added);
      await api(holder.api_key, 'DELETE', `/v1/credentials/${second.id}`);
      expect(linked()).not.toContain(added);
      expect(linked()).toContain(kept);
      const operatorId = wallets.resolve('evm', kept)!.operatorId!;
      const undone = server.store.write(async (tx) => {
        wallets.capture(tx, { tokenId: first.id, operatorId, network: 'evm', wallet: rolledBack, idempotencyKey: null, now: new Date(clock) });
        expect(linked()).toContain(rolledBack);
        throw new Error('rolled back');
      });
      await expect(undone).rejects.toThrow('rolled back');
      expect(linked()).not.toContain(rolledBack);
      expect(linked()).toContain(kept);
    });
  });

  describe('POST /v1/tokens/refresh', () => {
    const refresh = (token: unknown, headers = client()) => call(server.url, 'POST', '/v1/tokens/refresh', { body: { refresh_token: token }, headers });

    it('rotates: a fresh pair, the old refresh token spent; a spent one again revokes the whole login', async () => {
      const loginAt = clock;
      const login = await verifiedLogin(server.url, accounts.pro.api_key, clearPerson, client());
      const first = await refresh(login.refreshToken);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        operator_token: expect.stringMatching(/^opc_/),
        token_ttl_seconds: 86400,
        expires_at: new Date(clock + day).toISOString(),
        refresh_token: expect.stringMatching(/^prt_[A-Za-z0-9]{32}$/),
        refresh_token_expires_at: new Date(loginAt + 90 * day).toISOString(),
      });
      const tokens = server.identity.deps.state.tokens;
      expect(tokens.verify(first.body.operator_token, new Date(clock)).kind).toBe('active');
      const second = await refresh(first.body.refresh_token);
      expect(second.status).toBe(200);
      // The first refresh token again (an older generation): refused, and every token of the login revoked.
      const reused = await refresh(login.refreshToken);
      expect([reused.status, reused.body.error.code]).toEqual([401, 'token_expired']);
      for (const access of [login.operatorToken, first.body.operator_token, second.body.operator_token]) expect(tokens.verify(access, new Date(clock)).kind).toBe('expired');
      const latest = await refresh(second.body.refresh_token);
      expect([latest.status, latest.body.error.code]).toEqual([401, 'token_expired']);
    });

    it('the family lives 90 days from the login, whatever the rotations', async () => {
      const login = await verifiedLogin(server.url, accounts.pro.api_key, clearPerson, client());
      const rotated = await refresh(login.refreshToken);
      expect(rotated.body.refresh_token_expires_at).toBe(new Date(clock + 90 * day).toISOString());
      const start = clock;
      clock = start + 90 * day - 1;
      const last = await refresh(rotated.body.refresh_token);
      expect(last.body.refresh_token_expires_at).toBe(new Date(start + 90 * day).toISOString());
      clock = start + 90 * day;
      expect((await refresh(last.body.refresh_token)).body.error.code).toBe('token_expired');
      clock = start + 1_000;
    });

    it('50 concurrent exchanges of one refresh token yield exactly one new pair', async () => {
      const login = await verifiedLogin(server.url, accounts.pro.api_key, clearPerson, client());
      const answers = await Promise.all(Array.from({ length: 50 }, () => refresh(login.refreshToken)));
      const rotated = answers.filter((a) => a.status === 200);
      expect(rotated).toHaveLength(1);
      expect(answers.filter((a) => a.status === 401 && a.body.error.code === 'token_expired')).toHaveLength(49);
      // The 49 reuses revoked the family, the new pair with it.
      expect(server.identity.deps.state.tokens.verify(rotated[0]!.body.operator_token, new Date(clock)).kind).toBe('expired');
      const [row] = await server.store.read('SELECT count(*)::INTEGER AS n FROM refresh_tokens WHERE generation = 2 AND family_id = (SELECT family_id FROM operator_tokens WHERE session_id = $1)', [login.session.session_id]);
      expect(row!.n).toBe(1);
    });

    it('unknown: 401 invalid_credential; a bad body: 400; keyless and limited to 30 a minute per client address', async () => {
      expect((await refresh('prt_nosuchtokennosuchtokennosuchtoke')).body.error.code).toBe('invalid_credential');
      expect((await refresh('opc_notarefreshtoken')).body.error.code).toBe('invalid_credential');
      expect((await refresh(42)).body.error).toMatchObject({ code: 'bad_request', message: expect.stringMatching(/refresh_token/) });
      const from = { 'X-Forwarded-For': '203.0.113.200' };
      clock = Math.ceil(clock / 60_000) * 60_000;
      for (let i = 0; i < 30; i++) expect((await refresh('prt_x', from)).status).toBe(401);
      const limited = await refresh('prt_x', from);
      expect([limited.status, limited.body.error.code]).toEqual([429, 'rate_limited']);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    });
  });

  describe('a session token is accepted until it expires', () => {
    it('verifies while fresh and not after 24 hours', async () => {
      const login = await verifiedLogin(server.url, accounts.pro.api_key, clearPerson, client());
      const polled = await poll(login.session.poll_url, login.session.poll_secret, client());
      expect(polled.body.status).toBe('consumed');
      const tokens = server.identity.deps.state.tokens;
      expect(tokens.verify(login.operatorToken, new Date(clock + day - 1)).kind).toBe('active');
      expect(tokens.verify(login.operatorToken, new Date(clock + day)).kind).toBe('expired');
    });
  });
});
