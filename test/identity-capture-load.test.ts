// 1,000 concurrent wallet captures (spec 4.8) over real HTTP, of mixed (credential, wallet, network)
// tuples with repeated idempotency keys, give exactly the expected rows and counts. Keys are chosen
// so that the expectation does not depend on the order the captures arrive in: a tuple whose
// captures all carry one key is captured once (the others repeat its newest key); a tuple without
// keys, or with a fresh key each time, counts every capture. first_seen is true once per tuple.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { activeOverrides, changeAccountLimits } from '../api/usage/limits.ts';
import { tempDataDir } from './helpers/temp.ts';
import { call, sdnTinyCsv, submitSandbox } from './helpers/identity.ts';

const captures = 1_000;

describe('wallet capture under load', () => {
  const dataDir = tempDataDir('identity-capture-load');
  let server: RunningServer;
  let merchantKey: string;
  const tokens: string[] = [];

  beforeAll(async () => {
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', SANCTIONS_LIST_SOURCE: sdnTinyCsv }), silentLogger);
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    // An enterprise account with its own limits, so that 1,000 requests at once all get through.
    const merchant = await createAccount(server.store, { plan: 'enterprise' }, server.keys);
    merchantKey = merchant.api_key;
    const report = await changeAccountLimits(server.store, merchant.id, { ratePerSecond: 5_000, ratePerMinute: 100_000 });
    server.keys.setLimitOverrides(merchant.id, activeOverrides(report.overrides));
    for (const name of ['Aino Virtanen', 'Bram de Wit', 'Chiara Conti']) {
      const holder = await createAccount(server.store, { plan: 'pro' }, server.keys);
      const refused = await call(server.url, 'POST', '/v1/credentials', { key: holder.api_key, body: {} });
      await submitSandbox(refused.body.verify_url, { outcome: 'verified', jurisdiction: 'NL', age: '21+', name });
      tokens.push((await call(server.url, 'POST', '/v1/credentials', { key: holder.api_key, body: { ttl_days: 7 } })).body.credential);
    }
  });
  afterAll(() => server?.close());

  it(`${captures} concurrent captures: one row per counted capture, first_seen once per tuple`, async () => {
    type Kind = 'one-key' | 'no-key' | 'fresh-keys';
    const kinds: Kind[] = ['one-key', 'no-key', 'fresh-keys'];
    const tuples = Array.from({ length: 60 }, (_, i) => ({
      token: tokens[i % tokens.length]!,
      network: i % 4 === 3 ? 'solana' : 'evm',
      wallet: i % 4 === 3 ? bs58.encode(Buffer.alloc(32, i + 1)) : `0x${(i + 1).toString(16).padStart(40, '0')}`,
      kind: kinds[i % kinds.length]!,
      sent: 0,
    }));
    const requests = Array.from({ length: captures }, (_, n) => {
      const tuple = tuples[(n * 7919) % tuples.length]!;
      tuple.sent++;
      const key = tuple.kind === 'one-key' ? 'the-only-key' : tuple.kind === 'fresh-keys' ? `payment-${n}` : undefined;
      return { tuple, body: { operator_token: tuple.token, wallet_address: tuple.wallet, network: tuple.network, ...(key ? { idempotency_key: key } : {}) } };
    });
    const answers = await Promise.all(requests.map(({ body }) => call(server.url, 'POST', '/v1/credentials/wallets', { key: merchantKey, body })));
    expect(answers.filter((a) => a.status !== 200).map((a) => a.body)).toEqual([]);

    const expectedRows = tuples.reduce((sum, t) => sum + (t.kind === 'one-key' ? 1 : t.sent), 0);
    const [rows] = await server.store.read('SELECT count(*)::INTEGER AS n FROM wallet_captures');
    expect(rows!.n).toBe(expectedRows);
    expect(answers.filter((a) => !a.body.deduped)).toHaveLength(expectedRows);
    expect(answers.filter((a) => a.body.first_seen)).toHaveLength(tuples.length);

    const state = server.identity.deps.state;
    for (const t of tuples) {
      const verified = state.tokens.verify(t.token, new Date());
      const tokenId = verified.kind === 'active' ? verified.token.id : '';
      const expected = t.kind === 'one-key' ? 1 : t.sent;
      expect(state.wallets.transactionCount(tokenId, t.network as 'evm' | 'solana', t.wallet), `${t.kind} ${t.wallet}`).toBe(expected);
      const [row] = await server.store.read('SELECT count(*)::INTEGER AS n FROM wallet_captures WHERE token_id = $1 AND wallet = $2', [tokenId, t.wallet]);
      expect(row!.n).toBe(expected);
    }
    // Which key is a tuple's newest survives a restart: a capture without a key after a keyed one
    // (so the old key no longer dedupes), and three keys of one millisecond (the last one does).
    const capture = (wallet: string, key?: string) =>
      call(server.url, 'POST', '/v1/credentials/wallets', { key: merchantKey, body: { operator_token: tokens[0], wallet_address: wallet, network: 'evm', ...(key ? { idempotency_key: key } : {}) } });
    const unkeyed = `0x${'d1'.repeat(20)}`;
    const tied = `0x${'d2'.repeat(20)}`;
    await capture(unkeyed, 'pay-A');
    await capture(unkeyed);
    await capture(tied, 'k1');
    await capture(tied, 'k2');
    await capture(tied, 'k3');
    // The memory a restart loads says the same.
    await server.close();
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger);
    const reloaded = server.identity.deps.state;
    for (const t of tuples) {
      const verified = reloaded.tokens.verify(t.token, new Date());
      const tokenId = verified.kind === 'active' ? verified.token.id : '';
      expect(reloaded.wallets.transactionCount(tokenId, t.network as 'evm' | 'solana', t.wallet)).toBe(t.kind === 'one-key' ? 1 : t.sent);
    }
    expect((await capture(unkeyed, 'pay-A')).body).toEqual({ associated: true, first_seen: false });
    expect((await capture(tied, 'k3')).body).toEqual({ associated: true, first_seen: false, deduped: true });
  }, 120_000);
});
