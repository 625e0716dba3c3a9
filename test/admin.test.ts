// The admin channel: bound to loopback, token in a 0600 file, every other caller refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { tempDataDir } from './helpers/temp.ts';

describe('admin endpoint', () => {
  const dataDir = tempDataDir('admin');
  let server: RunningServer;
  let token: string;
  beforeAll(async () => {
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger);
    token = readFileSync(path.join(dataDir, 'admin.token'), 'utf8');
  });
  afterAll(() => server?.close());

  const call = (operation: string, body: unknown, auth = `Bearer ${token}`) =>
    fetch(`${server.adminUrl}/admin/operations/${operation}`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('listens on 127.0.0.1 and keeps its token in a file only the owner can read', () => {
    expect(server.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(statSync(path.join(dataDir, 'admin.token')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'admin.json'), 'utf8'))).toEqual({ pid: process.pid, url: server.adminUrl });
    expect(token).toMatch(/^adm_[A-Za-z0-9]{32}$/);
  });

  it('refuses a missing or wrong token', async () => {
    expect((await call('accounts.create', { plan: 'free' }, '')).status).toBe(401);
    expect((await call('accounts.create', { plan: 'free' }, `Bearer ${token}x`)).status).toBe(401);
    expect(await server.store.read('SELECT count(*)::INTEGER AS n FROM accounts')).toEqual([{ n: 0 }]);
  });

  // Only the whole token after "Bearer " opens the endpoint: no prefix of it, nothing before the scheme.
  it('refuses a truncated token and a token under another scheme', async () => {
    for (const auth of [`Bearer ${token.slice(0, -1)}`, 'Bearer adm_', `Bearer ${token.slice(0, 10)}`, `NotBearer ${token}`, `Basic x, Bearer ${token}`]) {
      const res = await call('accounts.create', { plan: 'free' }, auth);
      expect(res.status, auth).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    }
    expect(await server.store.read('SELECT count(*)::INTEGER AS n FROM accounts')).toEqual([{ n: 0 }]);
  });

  // Without the token nothing is revealed, not even which operations exist.
  it('answers 401 before looking at the operation name', async () => {
    expect((await call('accounts.delete', {}, '')).status).toBe(401);
    expect((await call('accounts.create', {}, '')).status).toBe(401);
  });

  // Operations are POST only, and only the listed ones: inherited names such as constructor are unknown.
  it('answers 404 for another method or an inherited name', async () => {
    const put = await fetch(`${server.adminUrl}/admin/operations/jobs.list`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
    expect(put.status).toBe(404);
    expect(((await put.json()) as { error: { code: string } }).error.code).toBe('not_found');
    const get = await fetch(`${server.adminUrl}/admin/operations/jobs.list`, { headers: { authorization: `Bearer ${token}` } });
    expect(get.status).toBe(404);
    const inherited = await call('constructor', {});
    expect(inherited.status).toBe(404);
    expect(((await inherited.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('validates operations and their arguments', async () => {
    expect((await call('accounts.delete', {})).status).toBe(404);
    const bad = await call('accounts.create', { plan: 'platinum' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/^plan: /);
    // An account name is 1 to 200 characters.
    for (const name of ['', 'x'.repeat(201)]) {
      const refused = await call('accounts.create', { plan: 'free', name });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/^name: /);
    }
    const ok = await call('accounts.create', { plan: 'scale', name: 'Acme' });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { result: { plan: string } }).result.plan).toBe('scale');
  });

  it('reads the body like the public API: 400 for bad JSON, 415 for another type, 413 past 1 MB, in the error format', async () => {
    const send = (body: string, type = 'application/json') =>
      fetch(`${server.adminUrl}/admin/operations/accounts.create`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body });
    const answers = [await send('{"plan": "free"'), await send('plan=free', 'application/x-www-form-urlencoded'), await send(JSON.stringify({ plan: 'free', name: 'x'.repeat(1_100_000) }))];
    const seen = await Promise.all(answers.map(async (res) => `${res.status} ${((await res.json()) as { error: { code: string } }).error.code}`));
    expect(seen).toEqual(['400 bad_request', '415 unsupported_media_type', '413 payload_too_large']);
    expect(await server.store.read('SELECT count(*)::INTEGER AS n FROM accounts')).toEqual([{ n: 1 }]);
  });

  it('runs no SQL: analysts query the Parquet exports (reputation sql) instead', async () => {
    expect((await call('sql', { query: 'DELETE FROM accounts' })).status).toBe(404);
    expect(await server.store.read('SELECT count(*)::INTEGER AS n FROM accounts')).toEqual([{ n: 1 }]);
  });

  it('removes its discovery files on clean shutdown', async () => {
    await server.close();
    expect(existsSync(path.join(dataDir, 'admin.json'))).toBe(false);
    expect(existsSync(path.join(dataDir, 'admin.token'))).toBe(false);
  });
});
