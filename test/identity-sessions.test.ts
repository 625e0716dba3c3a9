// Verification sessions over real HTTP (spec 2.3, 2.5, 2.6, 3.1, 4.3, 4.4, 8): creation and its
// refusals, every state a poll can answer with its next_steps, the operator token in exactly one
// answer, what follows failed, flagged and expired (docs/decisions.md), the poll's rate limit and
// its one answer for an unknown session and a wrong secret. The sandbox provider decides the
// outcomes, as a person on the verify page would; the name screening runs against the real
// tiny SDN list.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { tempDataDir } from './helpers/temp.ts';
import { cliEnv, runCli } from './helpers/cli.ts';
import { clearPerson, createSession, newSession, poll, sdnTinyCsv, submitSandbox } from './helpers/identity.ts';

const hour = 3_600_000;

describe('verification sessions', () => {
  const dataDir = tempDataDir('identity-sessions');
  let server: RunningServer;
  let clock = Date.parse('2026-06-01T12:00:00Z');
  let keys: { free: string; pro: string; enterprise: string };
  // Each test polls from its own client address, so the per-address limit is the rate test's alone.
  let clientAddress = 0;
  const client = () => ({ 'X-Forwarded-For': `198.51.100.${++clientAddress}` });

  beforeAll(async () => {
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', SANCTIONS_LIST_SOURCE: sdnTinyCsv, TRUST_PROXY_HOPS: '1', SUPPORT_EMAIL: 'review@example.org' });
    server = await startServer(config, silentLogger, { now: () => new Date(clock) });
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    keys = {
      free: (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key,
      pro: (await createAccount(server.store, { plan: 'pro', name: 'Acme Data Co' }, server.keys)).api_key,
      enterprise: (await createAccount(server.store, { plan: 'enterprise' }, server.keys)).api_key,
    };
  });
  afterAll(() => server?.close());
  // The clock stands still within a test; the key's per-second window must not carry over.
  beforeEach(() => {
    clock += 1_000;
  });

  describe('POST /v1/sessions', () => {
    it('answers a pending session with its secrets, urls on the service address, next_steps and agent_memory', async () => {
      const { status, headers, body } = await createSession(server.url, keys.pro, { context: 'GET /report', product_name: 'Premium weather report' });
      expect(status).toBe(200);
      expect(headers.get('cache-control')).toBe('no-store');
      expect(body.session_id).toMatch(/^sess_[0-9a-z]{10}[A-Za-z0-9]{12}$/);
      expect(body.poll_secret).toMatch(/^pls_[A-Za-z0-9]{32}$/);
      expect(body.status).toBe('pending');
      expect(body.test).toBe(true);
      expect(body.verify_url).toBe(`${server.url}/verify/${body.session_id}`);
      expect(body.poll_url).toBe(`${server.url}/v1/sessions/${body.session_id}`);
      expect(body.expires_at).toBe(new Date(clock + hour).toISOString());
      expect(body.next_steps).toMatchObject({ action: 'deliver_verify_url_and_poll', poll_interval_seconds: 5, poll_secret_header: 'X-Poll-Secret' });
      expect(body.next_steps.steps.length).toBeGreaterThan(0);
      expect(body.next_steps.user_message).toContain(body.verify_url);
      expect(body.agent_memory.identity_check_endpoint).toBe(server.url);
      expect(body.agent_memory.do_not_persist_in_memory).toEqual(['operator_token', 'poll_secret', 'refresh_token']);
      expect(body.agent_memory.persist_in_credential_store).toEqual(['operator_token', 'refresh_token']);
      expect(Object.keys(body.agent_memory)).toEqual(
        expect.arrayContaining(['pattern_summary', 'identity_check_endpoint', 'identity_paths', 'bootstrap', 'do_not_persist_in_memory', 'persist_in_credential_store']),
      );
      // No secret in any URL the answer gives.
      for (const url of [body.verify_url, body.poll_url]) expect(url).not.toContain(body.poll_secret);
    });

    it('without a context: minted, not written, until its page is used; the page shows its product name, and the row then has it', async () => {
      const rows = async (id: string) => server.store.read('SELECT context, product_name, status FROM verification_sessions WHERE id = $1', [id]);
      const { body } = await createSession(server.url, keys.pro, { product_name: 'Premium weather report' });
      expect(body.session_id).toMatch(/^sess_[A-Za-z0-9_-]{60,}$/);
      expect(await rows(body.session_id)).toEqual([]);
      expect((await poll(body.poll_url, body.poll_secret, client())).body.status).toBe('pending');
      expect(await (await fetch(body.verify_url, { headers: client() })).text()).toContain('Premium weather report');
      expect(await rows(body.session_id)).toEqual([]);
      await submitSandbox(body.verify_url, clearPerson, client());
      expect(await rows(body.session_id)).toEqual([{ context: null, product_name: 'Premium weather report', status: 'verified' }]);
      expect((await poll(body.poll_url, body.poll_secret, client())).body.operator_token).toMatch(/^opc_/);
      // A context (the merchant's own label, for no URL to show) or a long product name: written at once.
      const labelled = (await createSession(server.url, keys.pro, { context: 'order 1234' })).body;
      const long = (await createSession(server.url, keys.pro, { product_name: 'w'.repeat(65) })).body;
      for (const s of [labelled, long]) expect(s.session_id).toMatch(/^sess_[0-9a-z]{10}[A-Za-z0-9]{12}$/);
      expect(await rows(labelled.session_id)).toEqual([{ context: 'order 1234', product_name: null, status: 'pending' }]);
      expect(await rows(long.session_id)).toEqual([{ context: null, product_name: 'w'.repeat(65), status: 'pending' }]);
    });

    it('takes no body at all, and an empty object', async () => {
      expect((await createSession(server.url, keys.pro)).status).toBe(200);
      expect((await createSession(server.url, keys.pro, {})).status).toBe(200);
    });

    it('never takes the identity check endpoint from the request', async () => {
      const res = await fetch(`${server.url}/v1/sessions`, {
        method: 'POST',
        headers: { 'X-API-Key': keys.pro, Host: 'evil.example', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' },
      });
      const body = (await res.json()) as any;
      expect(res.status).toBe(200);
      expect(body.agent_memory.identity_check_endpoint).toBe(server.url);
      expect(body.verify_url.startsWith(server.url)).toBe(true);
    });

    it('is refused to plans without sessions (402) and without a key (401)', async () => {
      const free = await createSession(server.url, keys.free, {});
      expect(free.status).toBe(402);
      expect(free.body.error).toMatchObject({ code: 'payment_required', plan: 'free', entitlement: 'sessions' });
      const none = await createSession(server.url, '', {});
      expect([none.status, none.body.error.code]).toEqual([401, 'signup_required']);
    });

    it.each([
      [{ return_url: 'https://merchant.example/done' }, /^return_url is not accepted/],
      [{ payment_method: 'pm_123' }, /^payment_method is not accepted/],
      [{ payment_method_types: ['card'] }, /^payment_method_types is not accepted/],
      [{ metadata: { order: '1' } }, /^metadata is not accepted/],
      [{ product_name: 'x'.repeat(201) }, /product_name is at most 200 characters/],
      [{ product_name: 7 }, /product_name must be a string/],
      [{ context: 'x'.repeat(501) }, /context is at most 500 characters/],
      [{ colour: 'blue' }, /^colour: not a field of this request/],
      [['a'], /the body must be a JSON object/],
    ])('refuses %j with 400 bad_request naming the field', async (body, message) => {
      const { status, body: answer } = await createSession(server.url, keys.pro, body);
      expect(status).toBe(400);
      expect(answer.error.code).toBe('bad_request');
      expect(answer.error.message).toMatch(message);
    });

    it('takes a product name of exactly 200 characters', async () => {
      expect((await createSession(server.url, keys.pro, { product_name: 'x'.repeat(200) })).status).toBe(200);
    });

    it('shows the account display name and the product name on the verify page', async () => {
      const s = await newSession(server.url, keys.pro, { product_name: 'Premium <weather> report' });
      const page = await (await fetch(s.verify_url, { headers: client() })).text();
      expect(page).toContain('Acme Data Co');
      expect(page).toContain('Premium &#60;weather&#62; report');
      expect(page).not.toContain('<weather>');
    });
  });

  describe('GET /v1/sessions/{id}', () => {
    it('needs X-Poll-Secret (401 unauthorized)', async () => {
      const s = await newSession(server.url, keys.pro);
      const { status, body } = await poll(s.poll_url, undefined, client());
      expect([status, body.error.code]).toEqual([401, 'unauthorized']);
    });

    it('answers a wrong secret and an unknown session alike', async () => {
      const s = await newSession(server.url, keys.pro);
      const wrong = await poll(s.poll_url, 'pls_wrongwrongwrongwrongwrongwrongwr', client());
      const unknown = await poll(`${server.url}/v1/sessions/sess_0000000000aaaaaaaaaaaa`, s.poll_secret, client());
      const malformed = await poll(`${server.url}/v1/sessions/nonsense`, s.poll_secret, client());
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('unauthorized');
      expect(unknown.body).toEqual(wrong.body);
      expect(malformed.body).toEqual(wrong.body);
      expect([unknown.status, malformed.status]).toEqual([401, 401]);
    });

    it('needs no API key: the poll secret is the credential', async () => {
      const s = await newSession(server.url, keys.pro);
      const { status, body } = await poll(s.poll_url, s.poll_secret, client());
      expect(status).toBe(200);
      expect(body.status).toBe('pending');
    });

    it('pending: retry_after_seconds 5 and continue_polling, with the rate-limit headers', async () => {
      const s = await newSession(server.url, keys.pro);
      const { status, headers, body } = await poll(s.poll_url, s.poll_secret, client());
      expect(status).toBe(200);
      expect(body).toEqual({
        session_id: s.session_id,
        test: true,
        status: 'pending',
        expires_at: s.expires_at,
        retry_after_seconds: 5,
        next_steps: { action: 'continue_polling', poll_interval_seconds: 5, eta_message: expect.any(String) },
      });
      expect(headers.get('x-ratelimit-limit')).toBe('30');
      expect(headers.get('x-ratelimit-remaining')).toBe('29');
      expect(Number(headers.get('x-ratelimit-reset'))).toBeGreaterThan(clock / 1000);
      expect(headers.get('cache-control')).toBe('no-store');
    });

    it('verified: the operator token in exactly one answer, then consumed', async () => {
      const s = await newSession(server.url, keys.pro);
      const submitted = await submitSandbox(s.verify_url, clearPerson);
      expect([submitted.status, submitted.location]).toEqual([303, `/verify/${s.session_id}`]);
      const first = await poll(s.poll_url, s.poll_secret, client());
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        session_id: s.session_id,
        test: true,
        status: 'verified',
        operator_token: expect.stringMatching(/^opc_[A-Za-z0-9]{32}$/),
        completed_at: new Date(clock).toISOString(),
        token_ttl_seconds: 86400,
        token_expires_at: new Date(clock + 24 * hour).toISOString(),
        refresh_token: expect.stringMatching(/^prt_[A-Za-z0-9]{32}$/),
        refresh_token_expires_at: new Date(clock + 90 * 24 * hour).toISOString(),
        next_steps: { action: 'retry_merchant_request_with_operator_token', header_name: 'X-Operator-Token', user_message: expect.any(String) },
      });
      const second = await poll(s.poll_url, s.poll_secret, client());
      expect(second.body).toEqual({
        session_id: s.session_id,
        test: true,
        status: 'consumed',
        completed_at: new Date(clock).toISOString(),
        next_steps: { action: 'use_stored_operator_token', header_name: 'X-Operator-Token', user_message: expect.any(String) },
      });
      // The token identifies the operator the verification recorded, with its derived facts only.
      const token = server.identity.deps.state.tokens.verify(first.body.operator_token, new Date(clock));
      expect(token.kind).toBe('active');
      const operator = server.identity.deps.state.operators.get(token.kind === 'active' ? token.token.operatorId : '');
      expect(operator).toMatchObject({ jurisdiction: 'US', ageVerified: true, ageBracket: '21+', operatorType: 'individual', sanctionsResult: 'clear' });
      expect(server.identity.deps.state.tokens.verify(first.body.operator_token, new Date(clock + 24 * hour))).toMatchObject({ kind: 'expired' });
      expect(server.identity.deps.state.tokens.verify('opc_notatokennotatokennotatokennota', new Date(clock))).toEqual({ kind: 'unknown' });
    });

    it('HEAD on the poll is refused (405): it would spend the one-time token', async () => {
      const s = await newSession(server.url, keys.pro);
      await submitSandbox(s.verify_url, clearPerson);
      const head = await fetch(s.poll_url, { method: 'HEAD', headers: { 'X-Poll-Secret': s.poll_secret, ...client() } });
      expect([head.status, head.headers.get('allow')]).toEqual([405, 'GET']);
      const polled = await poll(s.poll_url, s.poll_secret, client());
      expect(polled.body.status).toBe('verified');
      expect(polled.body.operator_token).toMatch(/^opc_/);
    });

    it('flagged: a sanctioned name gets contact_support and never a token', async () => {
      const s = await newSession(server.url, keys.pro);
      await submitSandbox(s.verify_url, { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'Daniel Moreno' });
      for (let i = 0; i < 2; i++) {
        const { body } = await poll(s.poll_url, s.poll_secret, client());
        expect(body).toEqual({
          session_id: s.session_id,
        test: true,
          status: 'flagged',
          next_steps: {
            action: 'contact_support',
            support_email: 'review@example.org',
            support_subject: `Identity review for verification session ${s.session_id}`,
            user_message: expect.any(String),
            poll_interval_seconds: 300,
          },
        });
      }
      const page = await (await fetch(s.verify_url, { headers: client() })).text();
      expect(page).toContain('manual review');
      expect(page).toContain('review@example.org');
    });

    it("a listed name with a year of birth: verified when the entry lists no date in that year, flagged when it does", async () => {
      // MORENO, Daniel: DOB 12 Oct 1972 (sdn-tiny).
      const other = await newSession(server.url, keys.pro);
      await submitSandbox(other.verify_url, { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'Daniel Moreno', birth_year: '1985' });
      const verified = await poll(other.poll_url, other.poll_secret, client());
      expect(verified.body.status).toBe('verified');
      expect(verified.body.operator_token).toMatch(/^opc_/);
      const same = await newSession(server.url, keys.pro);
      await submitSandbox(same.verify_url, { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'Daniel Moreno', birth_year: '1972' });
      expect((await poll(same.poll_url, same.poll_secret, client())).body.status).toBe('flagged');
      // The reviewer sees that the year agrees with the listing.
      const listed = (await runCli(['operators', 'flagged', '--json'], cliEnv(dataDir))).stdout.trim().split('\n').map((line) => JSON.parse(line));
      expect(listed.find((r) => r.session_id === same.session_id)).toMatchObject({ sanctions_sdn_uid: '15102', sanctions_birth_check: 'in_listed_years' });
    });

    it('the sandbox refuses a year of birth that is no year, or that the age bracket rules out, and does not echo it', async () => {
      const s = await newSession(server.url, keys.pro);
      for (const [age, year] of [['21+', '2015'], ['under18', '1980'], ['21+', '85'], ['21+', '1850']]) {
        const refused = await submitSandbox(s.verify_url, { ...clearPerson, age, birth_year: year });
        expect([refused.status, refused.text], `${age} ${year}`).toEqual([400, expect.stringContaining('The year of birth must be a year from 1900')]);
        expect(refused.text).not.toContain(`value="${year}"`);
      }
      expect((await poll(s.poll_url, s.poll_secret, client())).body.status).toBe('pending');
    });

    it('flagged, then cleared by a review: verified, and the token is delivered once', async () => {
      const s = await newSession(server.url, keys.pro);
      await submitSandbox(s.verify_url, { outcome: 'verified', jurisdiction: 'RU', age: '21+', name: 'Dmitry Yurievich Khoroshev' });
      expect((await poll(s.poll_url, s.poll_secret, client())).body.status).toBe('flagged');
      const listed = await runCli(['operators', 'flagged', '--json'], cliEnv(dataDir));
      expect(listed.code).toBe(0);
      const rows = listed.stdout.trim().split('\n').map((line) => JSON.parse(line));
      expect(rows.find((r) => r.session_id === s.session_id)).toMatchObject({ sanctions_result: 'hit', sanctions_sdn_uid: '48603', sanctions_birth_check: 'not_given' });
      const reviewed = await runCli(['operators', 'review', s.session_id, '--clear', '--json'], cliEnv(dataDir));
      expect(reviewed.code).toBe(0);
      expect(JSON.parse(reviewed.stdout)).toMatchObject({ session_id: s.session_id, status: 'verified', review_decision: 'cleared' });
      // The birth check goes with the cleared match.
      const [cleared] = await server.store.read('SELECT sanctions_result, sanctions_birth_check FROM operators WHERE id = $1', [JSON.parse(reviewed.stdout).operator_id]);
      expect(cleared).toEqual({ sanctions_result: 'clear', sanctions_birth_check: null });
      const delivered = await poll(s.poll_url, s.poll_secret, client());
      expect(delivered.body.status).toBe('verified');
      expect(delivered.body.operator_token).toMatch(/^opc_/);
      expect((await poll(s.poll_url, s.poll_secret, client())).body.status).toBe('consumed');
      // A session is reviewed once.
      const again = await runCli(['operators', 'review', s.session_id, '--confirm'], cliEnv(dataDir));
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('not waiting for a review');
    });

    it('flagged, then confirmed by a review: flagged for good', async () => {
      const s = await newSession(server.url, keys.pro);
      await submitSandbox(s.verify_url, { outcome: 'verified', jurisdiction: 'BZ', age: '21+', name: 'MORENO, Daniel' });
      const reviewed = await runCli(['operators', 'review', s.session_id, '--confirm'], cliEnv(dataDir));
      expect(reviewed.code).toBe(0);
      expect((await poll(s.poll_url, s.poll_secret, client())).body.status).toBe('flagged');
      const listed = await runCli(['operators', 'flagged', '--json'], cliEnv(dataDir));
      expect(listed.stdout).not.toContain(s.session_id);
    });

    it('the review command needs exactly one decision (usage error, exit 2)', async () => {
      const both = await runCli(['operators', 'review', 'sess_x', '--clear', '--confirm'], cliEnv(dataDir));
      expect(both.code).toBe(2);
      const unknown = await runCli(['operators', 'review', 'sess_0000000000aaaaaaaaaaaa', '--clear'], cliEnv(dataDir));
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no verification session sess_0000000000aaaaaaaaaaaa');
    });

    it('failed: verification_failed with a retry on the same page until expiry, up to three attempts', async () => {
      const s = await newSession(server.url, keys.pro);
      await submitSandbox(s.verify_url, { outcome: 'failed' });
      const failed = await poll(s.poll_url, s.poll_secret, client());
      expect(failed.body).toEqual({
        session_id: s.session_id,
        test: true,
        status: 'failed',
        failure_code: 'document_unverified_other',
        next_steps: { action: 'verification_failed', user_message: expect.any(String), retry_until: s.expires_at, poll_interval_seconds: 5 },
      });
      // A retry that succeeds.
      await submitSandbox(s.verify_url, clearPerson);
      expect((await poll(s.poll_url, s.poll_secret, client())).body.status).toBe('verified');

      // Three failures leave no retry: the page offers none, and a submission changes nothing.
      const t = await newSession(server.url, keys.pro);
      for (let i = 0; i < 3; i++) await submitSandbox(t.verify_url, { outcome: 'failed' });
      const last = await poll(t.poll_url, t.poll_secret, client());
      expect(last.body.next_steps).toEqual({ action: 'verification_failed', user_message: expect.any(String) });
      const page = await (await fetch(t.verify_url, { headers: client() })).text();
      expect(page).toContain('No attempts are left');
      expect(page).not.toContain('data-outcome');
      await submitSandbox(t.verify_url, clearPerson);
      expect((await poll(t.poll_url, t.poll_secret, client())).body.status).toBe('failed');
    });

    it('expired: create_new_session after an hour, and nothing moves it any more', async () => {
      const s = await newSession(server.url, keys.pro);
      clock += hour - 1;
      expect((await poll(s.poll_url, s.poll_secret, client())).body.status).toBe('pending');
      clock += 1;
      const expired = await poll(s.poll_url, s.poll_secret, client());
      expect(expired.body).toEqual({
        session_id: s.session_id,
        test: true,
        status: 'expired',
        expires_at: s.expires_at,
        next_steps: { action: 'create_new_session', user_message: expect.any(String) },
      });
      await submitSandbox(s.verify_url, clearPerson);
      expect((await poll(s.poll_url, s.poll_secret, client())).body.status).toBe('expired');
      const page = await (await fetch(s.verify_url, { headers: client() })).text();
      expect(page).toContain('This link has expired');
    });

    it('a failed session past its expiry has no retry left', async () => {
      const s = await newSession(server.url, keys.pro);
      await submitSandbox(s.verify_url, { outcome: 'failed' });
      clock += hour;
      const { body } = await poll(s.poll_url, s.poll_secret, client());
      expect(body.status).toBe('failed');
      expect(body.next_steps.retry_until).toBeUndefined();
      await submitSandbox(s.verify_url, clearPerson);
      expect((await poll(s.poll_url, s.poll_secret, client())).body.status).toBe('failed');
    });

    it('a verified session nobody polls for 24 hours expires, token undelivered', async () => {
      const s = await newSession(server.url, keys.pro);
      await submitSandbox(s.verify_url, clearPerson);
      clock += 24 * hour;
      const { body } = await poll(s.poll_url, s.poll_secret, client());
      expect(body.status).toBe('expired');
      expect(body.operator_token).toBeUndefined();
    });

    it('limits polls to 30 a minute per client address (429 rate_limited with Retry-After)', async () => {
      const s = await newSession(server.url, keys.pro);
      const from = { 'X-Forwarded-For': '203.0.113.77' };
      // Start at a fresh minute, so the 30 fit in one window.
      clock = Math.ceil(clock / 60_000) * 60_000;
      for (let i = 0; i < 30; i++) {
        const { status, headers } = await poll(s.poll_url, s.poll_secret, from);
        expect(status).toBe(200);
        expect(headers.get('x-ratelimit-remaining')).toBe(String(29 - i));
      }
      const refused = await poll(s.poll_url, s.poll_secret, from);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      // Counted before the secret is checked: guessing secrets is limited too.
      expect((await poll(s.poll_url, 'pls_guess', from)).status).toBe(429);
      // Another client address is not affected; the next minute starts afresh.
      expect((await poll(s.poll_url, s.poll_secret, { 'X-Forwarded-For': '203.0.113.78' })).status).toBe(200);
      clock += 60_000;
      expect((await poll(s.poll_url, s.poll_secret, from)).status).toBe(200);
    });
  });

  describe('accounts rename', () => {
    it('changes the merchant name the verify page shows', async () => {
      const account = await createAccount(server.store, { plan: 'scale', name: 'Old Name Ltd' }, server.keys);
      const s = await newSession(server.url, account.api_key);
      const renamed = await runCli(['accounts', 'rename', account.id, '--name', 'New Name GmbH', '--json'], cliEnv(dataDir));
      expect(renamed.code).toBe(0);
      expect(JSON.parse(renamed.stdout)).toEqual({ id: account.id, name: 'New Name GmbH', plan: 'scale' });
      const page = await (await fetch(s.verify_url, { headers: client() })).text();
      expect(page).toContain('New Name GmbH');
      expect(page).not.toContain('Old Name Ltd');
      const unknown = await runCli(['accounts', 'rename', 'acc_nope', '--name', 'X'], cliEnv(dataDir));
      expect([unknown.code, unknown.stderr.includes('no account acc_nope')]).toEqual([1, true]);
    });
  });
});

describe('verification sessions with no SDN names loaded: name screening fails closed', () => {
  const dataDir = tempDataDir('identity-sessions-unscreened');
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger);
    key = (await createAccount(server.store, { plan: 'pro' }, server.keys)).api_key;
  });
  afterAll(() => server?.close());

  it('a verified outcome is flagged, never verified; a review cannot clear what was never screened', async () => {
    const s = await newSession(server.url, key);
    await submitSandbox(s.verify_url, clearPerson);
    const polled = await poll(s.poll_url, s.poll_secret);
    expect(polled.body.status).toBe('flagged');
    expect(polled.body.operator_token).toBeUndefined();
    const [operator] = await server.store.read('SELECT sanctions_result, sanctions_checked_at FROM operators');
    expect(operator).toEqual({ sanctions_result: 'unavailable', sanctions_checked_at: null });
    const cleared = await runCli(['operators', 'review', s.session_id, '--clear'], cliEnv(dataDir));
    expect(cleared.code).toBe(1);
    expect(cleared.stderr).toContain('no sanctions list could screen the name');
    const confirmed = await runCli(['operators', 'review', s.session_id, '--confirm'], cliEnv(dataDir));
    expect(confirmed.code).toBe(0);
    expect((await poll(s.poll_url, s.poll_secret)).body.status).toBe('flagged');
  });
});
