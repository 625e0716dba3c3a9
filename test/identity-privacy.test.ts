// Secrets and personal data of the verification flow stay out of everything the service keeps or
// produces: a poll secret, operator tokens (from a poll, an exchange, a credential), refresh tokens
// and names typed on the sandbox form are planted, and
// none may appear in the logs, in any text column of the database, in the bytes of its WAL and file,
// in the Parquet exports, or in any URL the service produced (answers, redirects, page links).
// A value that is stored on purpose (the merchant's display name) is looked for the same way and
// must be found: the checks can see what is there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../pipeline/config.ts';
import { createLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { tempDataDir } from './helpers/temp.ts';
import { cliEnv, repoRoot, runCli } from './helpers/cli.ts';
import { call, newSession, poll, sdnTinyCsv, submitSandbox } from './helpers/identity.ts';

const merchantName = 'Privacy Probe Merchant Ltd';
const typedName = 'Quillon Brevardine-Oustalet';
const minorName = 'Ysolde Marchetti-Varga';

describe('privacy of the verification flow', () => {
  const dataDir = tempDataDir('identity-privacy');
  const logLines: string[] = [];
  let server: RunningServer;
  const planted: Record<string, string> = {};
  const urls: string[] = [];

  beforeAll(async () => {
    // Scored data, so that the export job has runs to export.
    const imported = await runCli(['import', path.join(repoRoot, 'test/fixtures/import/transfers.csv'), '--kind', 'transfers'], cliEnv(dataDir));
    expect(imported.code).toBe(0);
    const log = createLogger('test', (line) => logLines.push(line));
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', SANCTIONS_LIST_SOURCE: sdnTinyCsv }), log);
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    const key = (await createAccount(server.store, { plan: 'pro', name: merchantName }, server.keys)).api_key;

    const s = await newSession(server.url, key, { product_name: 'Probe' });
    planted.pollSecret = s.poll_secret;
    planted.typedName = typedName;
    planted.minorName = minorName;
    urls.push(s.verify_url, s.poll_url);
    const pendingPage = await (await fetch(s.verify_url)).text();
    urls.push(...links(pendingPage));
    // An incomplete form first (the name is not echoed back), then the verified outcome.
    const incomplete = await submitSandbox(s.verify_url, { outcome: 'verified', name: typedName });
    expect(incomplete.status).toBe(400);
    expect(incomplete.text).not.toContain(typedName);
    const submitted = await submitSandbox(s.verify_url, { outcome: 'verified', jurisdiction: 'NL', age: '21+', name: typedName });
    urls.push(submitted.location!);
    const verified = await poll(s.poll_url, s.poll_secret);
    planted.operatorToken = verified.body.operator_token;
    expect(planted.operatorToken).toMatch(/^opc_/);
    planted.refreshToken = verified.body.refresh_token;
    // An exchange (a refresh token of the next generation, a new access token) and a credential.
    const exchanged = await call(server.url, 'POST', '/v1/tokens/refresh', { body: { refresh_token: planted.refreshToken } });
    planted.rotatedRefreshToken = exchanged.body.refresh_token;
    planted.rotatedOperatorToken = exchanged.body.operator_token;
    const holderRefused = await call(server.url, 'POST', '/v1/credentials', { key, body: {} });
    await submitSandbox(holderRefused.body.verify_url, { outcome: 'verified', jurisdiction: 'NL', age: '21+', name: typedName });
    const credential = await call(server.url, 'POST', '/v1/credentials', { key, body: { label: 'privacy' } });
    planted.credential = credential.body.credential;
    expect(planted.credential).toMatch(/^opc_/);
    await call(server.url, 'POST', '/v1/credentials/wallets', { key, body: { operator_token: planted.credential, wallet_address: `0x${'5'.repeat(40)}`, network: 'evm' } });
    await poll(s.poll_url, s.poll_secret);
    urls.push(...links(await (await fetch(s.verify_url)).text()));

    // A minor and a failure too, so every kind of outcome has written its rows.
    const t = await newSession(server.url, key);
    await submitSandbox(t.verify_url, { outcome: 'verified', jurisdiction: 'DE', age: 'under18', name: minorName });
    const u = await newSession(server.url, key);
    await submitSandbox(u.verify_url, { outcome: 'failed' });
    await (await server.jobs.run('score', {})).done;
    await (await server.jobs.run('export', {})).done;
  });
  afterAll(() => server?.close());

  const secrets = () => Object.entries(planted);

  it('the planted values were really produced', () => {
    expect(Object.keys(planted).sort()).toEqual(['credential', 'minorName', 'operatorToken', 'pollSecret', 'refreshToken', 'rotatedOperatorToken', 'rotatedRefreshToken', 'typedName']);
    for (const value of Object.values(planted)) expect(value.length).toBeGreaterThan(10);
    expect(logLines.length).toBeGreaterThan(0);
  });

  it('no log line carries them', () => {
    for (const [what, value] of secrets()) expect(logLines.filter((line) => line.includes(value)), what).toEqual([]);
  });

  it('no text column of any table holds them (the merchant name, stored on purpose, is found)', async () => {
    const columns = await server.store.read(
      "SELECT table_name, column_name FROM information_schema.columns WHERE data_type IN ('VARCHAR', 'JSON') AND table_schema = 'main' AND table_name IN (SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE')",
    );
    expect(columns.length).toBeGreaterThan(20);
    const holding = async (value: string) => {
      const found: string[] = [];
      for (const { table_name, column_name } of columns) {
        const [row] = await server.store.read(`SELECT count(*)::INTEGER AS n FROM "${String(table_name)}" WHERE contains(CAST("${String(column_name)}" AS VARCHAR), $1)`, [value]);
        if (Number(row!.n) > 0) found.push(`${String(table_name)}.${String(column_name)}`);
      }
      return found;
    };
    expect(await holding(merchantName)).toEqual(['accounts.name']);
    for (const [what, value] of secrets()) expect(await holding(value), what).toEqual([]);
  });

  it('no URL the service produced carries a secret', () => {
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) for (const [what, value] of secrets()) expect(url, what).not.toContain(value);
  });

  it('the exports hold none of them', () => {
    const exportsDir = path.join(dataDir, 'exports');
    expect(existsSync(exportsDir)).toBe(true);
    const files = filesUnder(exportsDir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const [what, value] of secrets()) expect(bytes.includes(value), `${what} in ${file}`).toBe(false);
    }
  });

  it('the WAL and the database file hold none of them in clear (the merchant name is in the WAL)', async () => {
    const file = server.store.file;
    const wal = readFileSync(`${file}.wal`);
    expect(wal.includes(merchantName)).toBe(true);
    for (const [what, value] of secrets()) expect(wal.includes(value), `${what} in the WAL`).toBe(false);
    await server.close();
    const db = readFileSync(file);
    for (const [what, value] of secrets()) expect(db.includes(value), `${what} in the database file`).toBe(false);
  });
});

function links(html: string): string[] {
  return [...html.matchAll(/(?:href|action)="([^"]+)"/g)].map((m) => m[1]!);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}
