// The prune-credentials job: expired operator tokens that no capture names, expired refresh families
// and expired wallet challenges are deleted CREDENTIAL_RETENTION_DAYS past their expiry, from the
// tables and from the owner's memory in the same writer unit. Tokens issued over real HTTP (a
// verified session's poll, a refresh exchange, a credential), a capture and a challenge too; the
// server's clock is moved to see each answer before and after.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { defaultSchedules } from '../jobs/definitions.ts';
import { pruneCredentials } from '../identity/prune-credentials.ts';
import { sha256Hex } from '../pipeline/secrets.ts';
import { tempDataDir } from './helpers/temp.ts';
import { call, sdnTinyCsv, verifiedLogin } from './helpers/identity.ts';

const day = 86_400_000;

describe('prune-credentials', () => {
  const dataDir = tempDataDir('credentials-prune');
  let server: RunningServer;
  const start = Date.parse('2026-06-01T12:00:00Z');
  let clock = start;
  let key: string;
  const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', SANCTIONS_LIST_SOURCE: sdnTinyCsv, CREDENTIAL_RETENTION_DAYS: '90' });

  beforeAll(async () => {
    server = await startServer(config, silentLogger, { now: () => new Date(clock) });
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    key = (await createAccount(server.store, { plan: 'pro', name: 'Prune Shop' }, server.keys)).api_key;
  });
  afterAll(() => server?.close());

  const assessCode = async (token: string) => (await call(server.url, 'POST', '/v1/assess', { key, body: { operator_token: token } })).body.error?.code ?? 'allowed';
  const refreshCode = async (token: string) => (await call(server.url, 'POST', '/v1/tokens/refresh', { body: { refresh_token: token } })).body.error?.code ?? 'rotated';
  const count = async (table: string) => Number((await server.store.read(`SELECT count(*)::INTEGER AS n FROM ${table}`))[0]!.n);
  const state = () => server.identity.deps.state;

  it('deletes what expired more than the retention ago, from the tables and from memory; a token a capture names stays', async () => {
    const plain = await verifiedLogin(server.url, key);
    const captured = await verifiedLogin(server.url, key);
    const wallet = `0x${'7'.repeat(40)}`;
    expect((await call(server.url, 'POST', '/v1/credentials/wallets', { key, body: { operator_token: captured.operatorToken, wallet_address: wallet, network: 'evm' } })).body).toMatchObject({ associated: true });
    expect((await call(server.url, 'POST', '/v1/wallets/challenge', { key, body: { address: `0x${'8'.repeat(40)}`, network: 'evm' } })).status).toBe(200);
    expect([await count('operator_tokens'), await count('refresh_tokens'), await count('wallet_challenges')]).toEqual([2, 2, 1]);

    // A day on, both access tokens have expired: told apart from unknown ones (spec 3.2).
    clock = start + day + 1_000;
    expect(await assessCode(plain.operatorToken)).toBe('token_expired');
    expect(await assessCode(captured.operatorToken)).toBe('token_expired');
    // The refresh families live 90 days from the login; then 90 days of retention.
    const familyEnd = start + 90 * day;
    expect(await pruneCredentials(server.store, state(), 90, new Date(familyEnd + 90 * day))).toEqual({
      operatorTokens: 1,
      refreshTokens: 0,
      walletChallenges: 1,
      cutoff: new Date(familyEnd).toISOString(),
    });
    expect(await assessCode(plain.operatorToken)).toBe('invalid_credential');
    expect(await assessCode(captured.operatorToken)).toBe('token_expired');
    // The capture still counts for the wallet: its token is not revoked, only expired.
    expect(state().wallets.resolve('evm', wallet)?.operatorId).not.toBeNull();
    expect(await count('operator_tokens')).toBe(1);

    clock = familyEnd + 1_000;
    expect(await refreshCode(plain.refreshToken)).toBe('token_expired');
    expect(await pruneCredentials(server.store, state(), 90, new Date(familyEnd + 90 * day))).toMatchObject({ refreshTokens: 0 });
    expect(await pruneCredentials(server.store, state(), 90, new Date(familyEnd + 90 * day + 1_000))).toMatchObject({ operatorTokens: 0, refreshTokens: 2, walletChallenges: 0 });
    expect(await refreshCode(plain.refreshToken)).toBe('invalid_credential');
    expect(await refreshCode(captured.refreshToken)).toBe('invalid_credential');
    expect([await count('operator_tokens'), await count('refresh_tokens'), await count('wallet_challenges')]).toEqual([1, 0, 0]);
  });

  it('a unit that rolls back leaves the tokens it had forgotten known', async () => {
    clock = Date.now();
    const login = await verifiedLogin(server.url, key);
    const row = (await server.store.read('SELECT id, token_hash FROM operator_tokens WHERE token_hash = $1', [sha256Hex(login.operatorToken)]))[0]!;
    const refreshHash = sha256Hex(login.refreshToken);
    await expect(
      server.store.writeOperational(async (tx) => {
        state().tokens.forget(tx, [{ id: String(row.id), hash: String(row.token_hash) }]);
        state().refresh.forget(tx, [refreshHash]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await assessCode(login.operatorToken)).not.toBe('invalid_credential');
    expect(await refreshCode(login.refreshToken)).toBe('rotated');
  });

  it('the job: CREDENTIAL_RETENTION_DAYS from the config, the real clock, the owner\'s memory; the counts as its result', async () => {
    // A login 200 days ago: its access token expired 199 days ago, its family 110 days ago.
    clock = Date.now() - 200 * day;
    const old = await verifiedLogin(server.url, key);
    clock = Date.now();
    expect(await assessCode(old.operatorToken)).toBe('token_expired');
    // Through the server's own job runner: its handler gets the owner's identity state.
    const result = await (await server.jobs.run('prune-credentials', {})).done;
    expect(result).toMatchObject({ operatorTokens: 1, refreshTokens: 1, walletChallenges: 0 });
    expect(await assessCode(old.operatorToken)).toBe('invalid_credential');
    expect(await refreshCode(old.refreshToken)).toBe('invalid_credential');
  });

  it('a revoked token goes even when a capture names it: its captures no longer count', async () => {
    clock = start + 10 * day;
    const login = await verifiedLogin(server.url, key);
    const wallet = `0x${'9'.repeat(40)}`;
    await call(server.url, 'POST', '/v1/credentials/wallets', { key, body: { operator_token: login.operatorToken, wallet_address: wallet, network: 'evm' } });
    expect(state().wallets.resolve('evm', wallet)).not.toBeNull();
    // The refresh token spent twice: the whole login is revoked (its access tokens too).
    expect(await refreshCode(login.refreshToken)).toBe('rotated');
    expect(await refreshCode(login.refreshToken)).toBe('token_expired');
    expect(state().wallets.resolve('evm', wallet)).toBeNull();
    const pruned = await pruneCredentials(server.store, state(), 90, new Date(start + 10 * day + 2 * day + 90 * day));
    expect(pruned.operatorTokens).toBe(2);
    expect(await assessCode(login.operatorToken)).toBe('invalid_credential');
    expect(state().wallets.resolve('evm', wallet)).toBeNull();
  });

  it('runs daily by default; CREDENTIAL_RETENTION_DAYS is 1-3650, 90 by default', () => {
    expect(defaultSchedules(loadConfig({ DATA_DIR: '/unused' })).filter((s) => s.jobName === 'prune-credentials')).toEqual([
      { scheduleId: 'prune-credentials', jobName: 'prune-credentials', jobData: {}, everySeconds: 86_400 },
    ]);
    expect(loadConfig({ DATA_DIR: '/unused' }).credentialRetentionDays).toBe(90);
    expect(() => loadConfig({ DATA_DIR: '/unused', CREDENTIAL_RETENTION_DAYS: '0' })).toThrow(/CREDENTIAL_RETENTION_DAYS: must be at least 1/);
    expect(() => loadConfig({ DATA_DIR: '/unused', CREDENTIAL_RETENTION_DAYS: '3651' })).toThrow(/CREDENTIAL_RETENTION_DAYS: must be at most 3650/);
  });
});
