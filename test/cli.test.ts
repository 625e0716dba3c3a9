// The CLI as a user runs it: accounts with and without a server, the lock message, usage errors.
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openStore } from '../pipeline/store/store.ts';
import { cliEnv, runCli, startServe, stopServe, type ServeProcess } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';
import { freePort } from './helpers/free-port.ts';

const lastJsonLine = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!) as { id: string; api_key: string; plan: string };

async function reputationStatus(url: string, key: string) {
  const res = await fetch(`${url}/v1/reputation/0x1111111111111111111111111111111111111111`, { headers: { 'X-API-Key': key } });
  return { status: res.status, body: (await res.json()) as { error: { code: string } } };
}

describe('reputation accounts create', () => {
  const dataDir = tempDataDir('cli');
  const env = cliEnv(dataDir);
  let serve: ServeProcess | undefined;
  afterAll(async () => {
    if (serve) await stopServe(serve);
  });

  it('accounts create --json without a server opens the database itself', async () => {
    const result = await runCli(['accounts', 'create', '--plan', 'starter', '--name', 'Acme', '--json'], env);
    expect(result.code).toBe(0);
    const account = lastJsonLine(result.stdout);
    expect(Object.keys(account).sort()).toEqual(['api_key', 'id', 'plan']);
    expect(account.plan).toBe('starter');
    expect(account.id).toMatch(/^acc_/);
    expect(account.api_key).toMatch(/^rpk_[A-Za-z0-9]{32}$/);
  });

  it('accounts create --json with a server goes through its admin endpoint and the key works at once', async () => {
    const earlier = lastJsonLine((await runCli(['accounts', 'create', '--plan', 'free', '--json'], env)).stdout);
    serve = await startServe(dataDir, env);
    const result = await runCli(['accounts', 'create', '--plan', 'pro', '--json'], env);
    expect(result.code).toBe(0);
    const account = lastJsonLine(result.stdout);
    expect(account.plan).toBe('pro');
    // Known key, unknown address: 404 (not 401) proves the running server knows the new key...
    expect((await reputationStatus(serve.url, account.api_key)).body.error.code).toBe('unknown_address');
    // ...and the one created directly before the server started.
    expect((await reputationStatus(serve.url, earlier.api_key)).body.error.code).toBe('unknown_address');
    expect((await reputationStatus(serve.url, 'rpk_not-a-real-key')).status).toBe(401);
  });

  it('prints a human-readable result without --json', async () => {
    const result = await runCli(['accounts', 'create', '--plan', 'growth'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^account acc_\S+ \(plan growth\)\napi key rpk_\S+\nThe key is shown only once/);
  });

  it('a second serve on the same DATA_DIR fails with the lock message naming the PID', async () => {
    const result = await runCli(['serve'], env);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`held by another process (PID ${serve!.child.pid}`);
    expect(result.stderr).toContain(`kill ${serve!.child.pid}`);
  });

  it('serve stops cleanly on SIGTERM and the data stays: accounts made with and without it', async () => {
    expect(await stopServe(serve!)).toBe(0);
    serve = undefined;
    const store = await openStore({ dataDir, readConnections: 1 });
    try {
      expect(await store.read('SELECT plan, count(*)::INTEGER AS n FROM accounts GROUP BY plan ORDER BY plan')).toEqual([
        { plan: 'free', n: 1 },
        { plan: 'growth', n: 1 },
        { plan: 'pro', n: 1 },
        { plan: 'starter', n: 1 },
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('serve with Redis unreachable', () => {
  it('still ends on the first SIGINT', async () => {
    const dataDir = tempDataDir('cli-dead-redis');
    const serve = await startServe(dataDir, { ...cliEnv(dataDir), REDIS_URL: `redis://127.0.0.1:${await freePort()}`, QUEUE_PREFIX: 'dead' });
    // Long enough for BullMQ's workers to be retrying the connection.
    await new Promise((resolve) => setTimeout(resolve, 12_000));
    serve.child.kill('SIGINT');
    // BullMQ's clients would keep retrying (and the process alive) without the explicit end.
    const code = await Promise.race([serve.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 40_000))]);
    if (code === 'still running') serve.child.kill('SIGKILL');
    expect(code).toBe(0);
    expect(serve.stderr()).toContain('stopped cleanly');
  }, 60_000);
});

describe('serve and a second signal', () => {
  // The first signal starts a clean stop; another one during it ends the process at once (130).
  it('exits 130 at once on a second signal during the stop', async () => {
    const dataDir = tempDataDir('cli-second-signal');
    const serve = await startServe(dataDir, cliEnv(dataDir));
    // A request whose body is still coming holds the clean stop open (it finishes the requests
    // in flight), so the second signal surely comes during it.
    const { hostname, port } = new URL(serve.url);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    socket.write(`POST /v1/reputation:batch HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"addr`);
    socket.on('error', () => undefined);
    await sleep(200);
    serve.child.kill('SIGTERM');
    while (!serve.stderr().includes('shutting down')) await sleep(20);
    serve.child.kill('SIGINT');
    expect(await serve.exited).toBe(130);
    expect(serve.stderr()).not.toContain('stopped cleanly');
    socket.destroy();
  });
});

describe('a server that is gone', () => {
  // admin.json left by a server that died (kill -9) names a dead PID: the CLI ignores it and opens the database itself.
  it('a CLI treats admin files whose process has exited as absent', async () => {
    const dataDir = tempDataDir('stale-admin');
    const exited = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => exited.on('exit', resolve));
    writeFileSync(path.join(dataDir, 'admin.json'), `${JSON.stringify({ pid: exited.pid, url: `http://127.0.0.1:${await freePort()}` })}\n`);
    writeFileSync(path.join(dataDir, 'admin.token'), 'adm_left-by-a-dead-server', { mode: 0o600 });
    const result = await runCli(['accounts', 'create', '--plan', 'free', '--json'], cliEnv(dataDir));
    expect(result.code, result.stderr).toBe(0);
    expect(lastJsonLine(result.stdout).plan).toBe('free');
  });
});

describe('usage errors', () => {
  const env = cliEnv(tempDataDir('usage'));

  it.each([
    [[], /^reputation: give a command \(reputation --help lists them\)$/m],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['accounts', 'create'], /required option '--plan <plan>' not specified/],
    [['accounts', 'create', '--plan', 'platinum'], /argument 'platinum' is invalid/],
    [['score', '--bogus'], /unknown option '--bogus'/],
    [['score', '--address', 'nonsense'], /option '--address <address>' argument 'nonsense' is invalid\. expected an EVM address/],
    [['sql', 'SELECT 1', '--limit', 'ten'], /expected a whole number/],
    [['ingest', '--source', 'bogus'], /argument 'bogus' is invalid/],
    [['jobs', 'run', 'frobnicate'], /unknown job frobnicate/],
    [['jobs', 'schedule', 'score'], /give --every <seconds> or --remove/],
    [['import', 'x.csv'], /required option '--kind <kind>' not specified/],
  ])('%j exits 2 with one line', async (args, message) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^reputation: /);
  });

  it.each([[['--help']], [['accounts', 'create', '--help']], [['sql', '--help']], [['ingest', '--help']]])('%j prints help and exits 0', async (args) => {
    const result = await runCli(args, env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: reputation/);
  });

  it('a bad setting stops start-up with a line naming it', async () => {
    const result = await runCli(['serve'], { ...env, PORT: 'eighty' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^reputation: invalid setting PORT: /);
  });

  it('ingest without a configured chain says how to configure one', async () => {
    const result = await runCli(['ingest'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('reputation: no chain is configured: set RPC_URL_<CHAIN> (e.g. RPC_URL_BASE) or run `reputation demo`\n');
  });
});
