// POST /v1/reputation:batch over HTTP: per-address results in request order, one call per
// address, the plan gate, and the body rules (JSON only, size limit, shape).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { cliEnv, repoRoot, runCli } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

// From test/fixtures/import/transfers.csv.
const payee = '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c';
const solana = 'awF1tyZBDfKCYFYkyrsjVbDSdiduVJECqra5UrUTQCh';
const unknown = '0x1111111111111111111111111111111111111111';

describe('POST /v1/reputation:batch', () => {
  const dataDir = tempDataDir('reputation-batch');
  let server: RunningServer;
  let keys: { free: string; starter: string; growth: string };

  beforeAll(async () => {
    const imported = await runCli(['import', path.join(repoRoot, 'test/fixtures/import/transfers.csv'), '--kind', 'transfers'], cliEnv(dataDir));
    expect(imported.code).toBe(0);
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger);
    await (await server.jobs.run('score', {})).done;
    keys = {
      free: (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key,
      starter: (await createAccount(server.store, { plan: 'starter' }, server.keys)).api_key,
      growth: (await createAccount(server.store, { plan: 'growth' }, server.keys)).api_key,
    };
  });
  afterAll(() => server?.close());

  const batch = async (key: string, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
    const res = await fetch(`${server.url}/v1/reputation:batch`, {
      method: 'POST',
      headers: { 'X-API-Key': key, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  it('answers each address in request order: a record, or the error a single lookup gives', async () => {
    const { status, body } = await batch(keys.growth, { addresses: [payee.toUpperCase().replace('0X', '0x'), unknown, 'not-an-address', solana] });
    expect(status).toBe(200);
    expect(body.count).toBe(4);
    expect(body.results.map((r: { status: number }) => r.status)).toEqual([200, 404, 400, 200]);
    const single = await fetch(`${server.url}/v1/reputation/${payee}`, { headers: { 'X-API-Key': keys.growth } });
    expect(body.results[0]).toEqual({ address: payee, status: 200, record: await single.json() });
    expect(body.results[1]).toMatchObject({ address: unknown, error: { code: 'unknown_address', can_assess: true } });
    expect(body.results[2]).toMatchObject({ address: 'not-an-address', error: { code: 'invalid_address' } });
    expect(body.results[3].record.subject).toEqual({ address: solana, chains: ['solana'] });
  });

  it('filters by chain like the single lookup', async () => {
    const { body } = await batch(keys.growth, { addresses: [payee, solana], chain: 'solana' });
    expect(body.results.map((r: { status: number }) => r.status)).toEqual([200, 200]);
    expect(body.results.map((r: { record: { chains: unknown[] } }) => r.record.chains.length)).toEqual([0, 1]);
  });

  it('counts one call per address against the quota', async () => {
    const first = await batch(keys.starter, { addresses: [payee, payee, unknown] });
    const used = Number(first.headers.get('x-quota-used'));
    const second = await batch(keys.starter, { addresses: [payee, solana] });
    expect(Number(second.headers.get('x-quota-used'))).toBe(used + 2);
  });

  it('is a paid feature: 402 on the free plan', async () => {
    const { status, body } = await batch(keys.free, { addresses: [payee] });
    expect(status).toBe(402);
    expect(body.error.code).toBe('payment_required');
  });

  it('answers a batch of exactly 100 addresses (the paid plans\' batch size), counting 100 calls', async () => {
    const before = await batch(keys.starter, { addresses: [payee] });
    const used = Number(before.headers.get('x-quota-used'));
    const full = await batch(keys.starter, { addresses: Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? payee : solana)) });
    expect(full.status).toBe(200);
    expect(full.body.count).toBe(100);
    expect(full.body.results.every((r: { status: number }) => r.status === 200)).toBe(true);
    expect(Number(full.headers.get('x-quota-used'))).toBe(used + 100);
  });

  it('refuses more than 100 addresses, an empty list, unknown fields, non-JSON and oversized bodies', async () => {
    const used = Number((await batch(keys.growth, { addresses: [payee] })).headers.get('x-quota-used'));
    const tooMany = await batch(keys.growth, { addresses: Array.from({ length: 101 }, () => payee) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: 'bad_request', message: 'addresses: at most 100 per request' });
    // Refused before metering: the next call is the only one counted since.
    expect(Number((await batch(keys.growth, { addresses: [payee] })).headers.get('x-quota-used'))).toBe(used + 1);
    // A chain that is not a chain name and an entry too long to be an address refuse the request
    // (as ?chain= does for the single lookup), not one result.
    for (const body of [{ addresses: [] }, { addresses: 'x' }, { addresses: [payee], extra: 1 }, {}, { addresses: [payee], chain: 'Base Mainnet' }, { addresses: [payee], chain: 'a'.repeat(65) }, { addresses: [payee, 'x'.repeat(101)] }]) {
      const res = await batch(keys.growth, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('bad_request');
    }
    const malformed = await batch(keys.growth, '{"addresses": [');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('bad_request');
    const form = await batch(keys.growth, 'addresses=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.body.error.code).toBe('unsupported_media_type');
    const huge = await batch(keys.growth, { addresses: [payee], padding: 'x'.repeat(64 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('payload_too_large');
  });

  // README: 413 past 32 KiB, 415 unless application/json, 400 without a body; a chunked body
  // (no Content-Length) is read like any other.
  it('reads a body of exactly 32 KiB, chunked or not, and refuses one byte more, another type and none', async () => {
    const ofSize = (bytes: number) => {
      const json = JSON.stringify({ addresses: [payee] });
      return json + ' '.repeat(bytes - json.length);
    };
    const chunked = (text: string) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(text);
          for (let at = 0; at < bytes.length; at += 4096) controller.enqueue(bytes.subarray(at, at + 4096));
          controller.close();
        },
      });
    // A key of its own, so the earlier tests' calls leave its per-second window open.
    const { api_key } = await createAccount(server.store, { plan: 'scale' }, server.keys);
    const post = async (body: string | ReadableStream<Uint8Array> | undefined, headers: Record<string, string>) => {
      const res = await fetch(`${server.url}/v1/reputation:batch`, { method: 'POST', headers: { 'X-API-Key': api_key, ...headers }, body, duplex: 'half' } as RequestInit);
      return `${res.status} ${res.status === 200 ? '' : ((await res.json()) as { error: { code: string } }).error.code}`.trim();
    };
    const json = { 'content-type': 'application/json' };
    expect(await post(ofSize(32 * 1024), json)).toBe('200');
    expect(await post(ofSize(32 * 1024 + 1), json)).toBe('413 payload_too_large');
    expect(await post(chunked(ofSize(32 * 1024)), json)).toBe('200');
    expect(await post(chunked(ofSize(32 * 1024 + 1)), json)).toBe('413 payload_too_large');
    expect(await post(ofSize(100), { 'content-type': 'application/json; charset=utf-8' })).toBe('200');
    expect(await post(ofSize(100), { 'content-type': 'text/plain' })).toBe('415 unsupported_media_type');
    expect(await post(undefined, {})).toBe('400 bad_request');
    expect(await post(undefined, json)).toBe('400 bad_request');
  });

  // Last: it replaces the server with one whose lag is an hour and whose clock the test sets.
  it('each record is scored or stale as a single lookup would say, under the configured STALE_AFTER_SECONDS', async () => {
    await server.close();
    let now = new Date();
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', STALE_AFTER_SECONDS: '3600' }), silentLogger, { now: () => now });
    const [run] = await server.store.read(`SELECT strftime(scored_at, '%Y-%m-%dT%H:%M:%SZ') AS t FROM scoring_runs ORDER BY run_id DESC LIMIT 1`);
    const scoredAt = Date.parse(String(run!.t));
    // Exactly the lag is still scored; a second more is stale, well inside the default 24 h.
    for (const [secondsAfterRun, status] of [[3_600, 'scored'], [3_601, 'stale']] as const) {
      now = new Date(scoredAt + secondsAfterRun * 1_000);
      const { body } = await batch(keys.growth, { addresses: [payee] });
      expect(body.results[0].record.score.status, `${secondsAfterRun} s`).toBe(status);
      expect(body.results[0].record.chains[0].score.status, `${secondsAfterRun} s`).toBe(status);
    }
  });
});
