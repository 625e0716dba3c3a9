// GET /v1/stats, GET /v1/agents, the four legacy /api/v1 endpoints and GET /health over real
// HTTP against a real DuckDB: first with nothing scored, then with agents, agent wallets,
// registration files and payments written into the raw tables and scored by the scoring job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { createApp } from '../api/app.ts';
import type { IdentityService } from '../identity/service.ts';
import type { Store } from '../pipeline/store/store.ts';
import { tempDataDir } from './helpers/temp.ts';
import { freePort } from './helpers/free-port.ts';
import { sharedRedisUrl } from './helpers/redis.ts';

const facilitator = '0x179761d9eed0f0d1599330cc94b0926e68ae87f1'; // a known facilitator on base
const usdc = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const registry = '0x8004a169fb4a3325136eb29fa0ceb6d2e539a432';
const addr = (tag: string, n: number) => `0x${tag}${n.toString(16).padStart(40 - tag.length, '0')}`;

// 30 agents on base and ethereum; owners hold four agents each; every fifth agent has an
// agentWallet; a third have a real registration file with a web endpoint, a third a placeholder,
// a third none (unknown); even agents are paid, every fourth through the facilitator. Owner 1
// is also paid on optimism, where it has no agent.
const agentCount = 30;
const chainOf = (i: number) => (i % 3 === 0 ? 'ethereum' : 'base');
const ownerOf = (i: number) => addr('a0', Math.floor((i - 1) / 4) + 1);
const walletOf = (i: number) => (i % 5 === 0 ? addr('b0', i) : null);
const payTo = (i: number) => walletOf(i) ?? ownerOf(i);
const qualityOf = (i: number) => (['unknown', 'real', 'placeholder'] as const)[i % 3]!;

async function writeAgents(store: Store): Promise<void> {
  await store.write(async (tx) => {
    let payment = 0;
    for (let i = 1; i <= agentCount; i++) {
      const chain = chainOf(i);
      await tx.run(`INSERT INTO imported_agents VALUES ('imp_test', $1, $2, $3, $4, $5, 100, NULL, NULL)`, [chain, registry, String(i), ownerOf(i), `https://agent${i}.example/agent.json`]);
      const wallet = walletOf(i);
      if (wallet) {
        await tx.run(`INSERT INTO agent_metadata VALUES ($1, 200, $2, 0, $3, $4, 'agentWallet', $5)`, [chain, `0x${i.toString(16).padStart(64, 'c')}`, registry, String(i), `0x${'0'.repeat(24)}${wallet.slice(2)}`]);
      }
      const quality = qualityOf(i);
      if (quality !== 'unknown') {
        const services = quality === 'real' ? JSON.stringify([{ name: 'web', endpoint: `https://agent${i}.example` }]) : '[]';
        await tx.run(
          `INSERT INTO registration_files (chain, registry, agent_id, agent_uri, fetched_at, fetch_status, metadata_kind, name, description, services, metadata_quality)
           VALUES ($1, $2, $3, $4, TIMESTAMP '2025-11-01 00:00:00', 'ok', 'https', $5, $6, $7::JSON, $8)`,
          [chain, registry, String(i), `https://agent${i}.example/agent.json`, `Agent ${i}`, `Agent number ${i}`, services, quality],
        );
      }
      if (i % 2 === 0) {
        const payments = i % 4 === 0 ? 1 + (i % 7) : 1;
        for (let p = 0; p < payments; p++) {
          payment++;
          const payer = addr('d0', payment);
          await tx.run(
            `INSERT INTO imported_transfers VALUES ('imp_test', $1, $2, TIMESTAMP '2025-11-03 10:00:00' + to_days($3::INTEGER), $4, 0, $5, $6, $7, 2500000, $8, true)`,
            [chain, 1000 + payment, p, `0x${payment.toString(16).padStart(64, 'e')}`, usdc, payer, payTo(i), i % 4 === 0 ? facilitator : payer],
          );
        }
      }
    }
    await tx.run(
      `INSERT INTO imported_transfers VALUES ('imp_test', 'optimism', 5000, TIMESTAMP '2025-11-04 10:00:00', $1, 0, $2, $3, $4, 2500000, $3, true)`,
      [`0x${'f'.repeat(64)}`, usdc, addr('d0', 999), ownerOf(1)],
    );
  });
}

describe('stats, agent browse, legacy endpoints, health', () => {
  const dataDir = tempDataDir('browse-stats');
  let server: RunningServer;
  let key: string;
  let startedAt = 0;

  beforeAll(async () => {
    startedAt = Date.now();
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger);
    key = (await createAccount(server.store, { plan: 'enterprise' }, server.keys)).api_key;
  });
  afterAll(() => server?.close());

  // Many requests in a row: a per-second rate limit answer (429) is waited out and retried.
  const get = async (path: string, withKey = true) => {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${server.url}${path}`, { headers: withKey ? { 'X-API-Key': key } : {} });
      const body = (await res.json()) as any;
      if (res.status === 429 && body.error?.code === 'rate_limited' && attempt < 5) {
        await new Promise((resolve) => setTimeout(resolve, 1000 * Number(res.headers.get('retry-after') ?? 1)));
        continue;
      }
      return { status: res.status, headers: res.headers, body };
    }
  };
  const expectBadRequest = async (path: string, names: string, withKey = true) => {
    const res = await get(path, withKey);
    expect(res.status, path).toBe(400);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error.code).toBe('bad_request');
    expect(res.body.error.message).toContain(names);
    expect(res.headers.get('cache-control')).toBeNull();
  };

  it('before the first scoring run: empty bodies of the same shape, health degraded', async () => {
    const stats = await get('/v1/stats');
    expect(stats.status).toBe(200);
    expect(stats.headers.get('cache-control')).toBe('private, max-age=1800');
    // Every field of spec 4.9 / 4.11, each count 0, each average null, each map empty.
    const zeros = { A: 0, B: 0, C: 0, D: 0, F: 0 };
    expect(stats.body).toEqual({
      version: 'v2',
      as_of_time: null,
      data_semantics: 'candidate_payment_activity_with_verified_subset',
      erc8004: { known_agents: 0, by_chain: {}, metadata_quality_distribution: { real: 0, placeholder: 0, unknown: 0 } },
      reputation: { total_addresses: 0, scored_addresses: 0, entity_distribution: { agent: 0, service: 0, wallet: 0, hybrid: 0, unknown: 0 }, score_distribution: zeros },
      payments: {
        addresses_with_candidate_payment_activity: 0,
        addresses_with_verified_payment_activity: 0,
        total_candidate_transactions: 0,
        total_verified_transactions: 0,
        verification_status_summary: { candidate: 0, verified: 0 },
      },
      caveats: [expect.stringMatching(/no scoring run/i)],
    });
    expect((await get('/api/v1/x402/stats', false)).body).toEqual({
      total_wallets: 0,
      distribution: zeros,
      avg_score: null,
      max_score: null,
      min_score: null,
      wallets_as_payer: 0,
      wallets_as_payee: 0,
      wallets_both_roles: 0,
      total_transactions: 0,
      roles: { agent: 0, hybrid: 0, service: 0 },
      identified_agents: 0,
      data_source: expect.any(String),
      version: 'v1',
    });
    expect((await get('/api/v1/erc8004/stats', false)).body).toEqual({
      total_agents: 0,
      average_score: null,
      max_score: null,
      min_score: null,
      grade_distribution: Object.fromEntries(Object.keys(zeros).map((g) => [g, { count: 0, pct: 0 }])),
      chains: {},
      scoring: { weights: { identity: 0.2, activity: 0.2, capability: 0.3, reach: 0.05, trust: 0.25 }, version: 'v1', dimensions: ['identity', 'activity', 'capability', 'reach', 'trust'] },
    });
    expect((await get('/api/v1/x402/identified', false)).body).toEqual({ total: 0, wallets: [] });
    expect((await get('/api/v1/x402/browse', false)).body).toEqual({ total: 0, offset: 0, limit: 50, wallets: [] });
    expect((await get('/v1/agents')).body).toEqual({ items: [], next_cursor: null, count: 0, version: 'v1' });
    const health = await get('/health', false);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({
      status: 'degraded',
      version: 'v1',
      database: { ok: true },
      redis: { configured: false },
      scoring: { last_run_id: null, last_scored_at: null, age_seconds: null, model_version: 'v1' },
    });
  });

  it('after scoring: /v1/stats serves the newest run’s v2 body, cached until a newer run', async () => {
    await writeAgents(server.store);
    await (await server.jobs.run('score', {})).done;
    const [stored] = await server.store.read(`SELECT run_id, body::VARCHAR AS body FROM run_stats WHERE name = 'v2' ORDER BY run_id DESC LIMIT 1`);
    const { status, headers, body } = await get('/v1/stats');
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('private, max-age=1800');
    expect(body).toEqual(JSON.parse(String(stored!.body)));
    expect(body.erc8004).toEqual({
      known_agents: agentCount,
      by_chain: { base: 20, ethereum: 10 },
      metadata_quality_distribution: { real: 10, placeholder: 10, unknown: 10 },
    });
    // Served from memory: a change to the stored body of the same run is not seen...
    await server.store.write((tx) => tx.run(`UPDATE run_stats SET body = json_merge_patch(body, '{"caveats": ["edited"]}') WHERE name = 'v2' AND run_id = $1`, [Number(stored!.run_id)]));
    expect((await get('/v1/stats')).body.caveats).toEqual(body.caveats);
    // ...until a newer run exists.
    await (await server.jobs.run('score', { full: true })).done;
    const [latest] = await server.store.read(`SELECT max(run_id) AS r FROM run_stats`);
    expect(Number(latest!.r)).toBeGreaterThan(Number(stored!.run_id));
    // Mark the newer run's stored body before the first request reads it: what is served is that
    // run's row, not the body cached for the older one.
    await server.store.write((tx) => tx.run(`UPDATE run_stats SET body = json_merge_patch(body, '{"caveats": ["newer run"]}') WHERE name = 'v2' AND run_id = $1`, [Number(latest!.r)]));
    const newer = (await get('/v1/stats')).body;
    expect(newer.caveats).toEqual(['newer run']);
    expect(newer.as_of_time >= body.as_of_time).toBe(true);
  });

  it('/v1/stats needs a key', async () => {
    const res = await get('/v1/stats', false);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('signup_required');
    expect((await get('/v1/agents', false)).status).toBe(401);
  });

  it('/v1/agents lists every agent with the 2.9 fields and payment flags of its payment address', async () => {
    const { status, body } = await get('/v1/agents?limit=100');
    expect(status).toBe(200);
    expect(body.count).toBe(agentCount);
    expect(body.version).toBe('v1');
    expect(body.next_cursor).toBeNull();
    expect(body.items).toHaveLength(agentCount);
    const byId = new Map(body.items.map((item: any) => [Number(item.agent_id), item]));
    for (let i = 1; i <= agentCount; i++) {
      const item: any = byId.get(i);
      expect(item).toMatchObject({
        chain: chainOf(i),
        registry,
        agent_id: String(i),
        owner: ownerOf(i),
        agent_wallet: walletOf(i),
        payment_address: payTo(i),
        metadata_quality: qualityOf(i),
        has_endpoint: qualityOf(i) === 'real',
        github_url: null,
        entity_type: 'agent',
        has_candidate_payment_activity: expect.any(Boolean),
        has_verified_payment_activity: expect.any(Boolean),
      });
      expect(item.name).toBe(qualityOf(i) === 'unknown' ? null : `Agent ${i}`);
      expect(item.description).toBe(qualityOf(i) === 'unknown' ? null : `Agent number ${i}`);
      // Payment facts belong to the payment address: agents of one owner without a wallet share them.
      const paidHere = Array.from({ length: agentCount }, (_, k) => k + 1).filter((j) => j % 2 === 0 && chainOf(j) === chainOf(i) && payTo(j) === payTo(i));
      expect(item.has_candidate_payment_activity).toBe(paidHere.length > 0);
      expect(item.has_verified_payment_activity).toBe(paidHere.some((j) => j % 4 === 0));
      // Above 1 exactly when payment data is shared: the agents paid at this payment address.
      const sharing = Array.from({ length: agentCount }, (_, k) => k + 1).filter((j) => chainOf(j) === chainOf(i) && payTo(j) === payTo(i)).length;
      expect(item.agents_sharing_owner).toBe(sharing);
      expect(item.score).toBeGreaterThanOrEqual(0);
      expect(item.grade).toMatch(/^[A-F]$/);
    }
    // Owner 3's agents: 10 (its own wallet) and 11 on base share nothing; 9 and 12 on ethereum,
    // both paid at the owner, share its payment data.
    expect(Object.fromEntries([9, 10, 11, 12].map((i) => [i, (byId.get(i) as any).agents_sharing_owner]))).toEqual({ 9: 2, 10: 1, 11: 1, 12: 2 });
    // Stable order: score desc, chain, agent id.
    const keys = body.items.map((item: any) => [item.score, item.chain, Number(item.agent_id)]);
    const sorted = [...keys].sort((a, b) => b[0] - a[0] || a[1].localeCompare(b[1]) || a[2] - b[2]);
    expect(keys).toEqual(sorted);
  });

  it('/v1/agents pages by cursor and by offset: same order, no duplicates, no gaps', async () => {
    const all = (await get('/v1/agents?limit=100')).body.items.map((item: any) => `${item.chain}/${item.agent_id}`);
    for (const limit of [1, 7, 10, 30]) {
      const byCursor: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: any = (await get(`/v1/agents?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)).body;
        expect(page.count).toBe(agentCount);
        expect(page.items.length).toBeLessThanOrEqual(limit);
        byCursor.push(...page.items.map((item: any) => `${item.chain}/${item.agent_id}`));
        cursor = page.next_cursor;
        if (cursor) expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
        pages++;
      } while (cursor);
      expect(pages).toBe(Math.ceil(agentCount / limit));
      expect(byCursor).toEqual(all);
      const byOffset: string[] = [];
      for (let offset = 0; offset < agentCount; offset += limit) {
        const page = (await get(`/v1/agents?limit=${limit}&offset=${offset}`)).body;
        byOffset.push(...page.items.map((item: any) => `${item.chain}/${item.agent_id}`));
        expect(page.next_cursor === null).toBe(offset + limit >= agentCount);
      }
      expect(byOffset).toEqual(all);
    }
    // The default page is 25; past the end is empty with the total.
    const first = (await get('/v1/agents')).body;
    expect(first.items).toHaveLength(25);
    expect(first.next_cursor).not.toBeNull();
    expect((await get('/v1/agents?offset=1000')).body).toEqual({ items: [], next_cursor: null, count: agentCount, version: 'v1' });
  });

  it('/v1/agents applies every filter, and count follows the filter', async () => {
    const all: any[] = (await get('/v1/agents?limit=100')).body.items;
    const cases: [string, (item: any) => boolean][] = [
      ['chain=ethereum', (a) => a.chain === 'ethereum'],
      ['chain=solana', () => false],
      ['metadata_quality=real', (a) => a.metadata_quality === 'real'],
      ['metadata_quality=placeholder', (a) => a.metadata_quality === 'placeholder'],
      ['metadata_quality=unknown', (a) => a.metadata_quality === 'unknown'],
      ['entity_type=agent', () => true],
      ['entity_type=service', () => false],
      ['has_endpoint=true', (a) => a.has_endpoint],
      ['has_endpoint=false', (a) => !a.has_endpoint],
      ['has_candidate_payment_activity=true', (a) => a.has_candidate_payment_activity],
      ['has_candidate_payment_activity=false', (a) => !a.has_candidate_payment_activity],
      ['has_verified_payment_activity=true', (a) => a.has_verified_payment_activity],
      ['has_verified_payment_activity=false', (a) => !a.has_verified_payment_activity],
      ['chain=base&has_endpoint=true&has_verified_payment_activity=true', (a) => a.chain === 'base' && a.has_endpoint && a.has_verified_payment_activity],
    ];
    const scores = [...new Set(all.map((a) => a.score))].sort((a, b) => a - b);
    const median = scores[Math.floor(scores.length / 2)];
    cases.push([`min_score=${median}`, (a) => a.score >= median]);
    cases.push([`min_score=${median - 0.5}`, (a) => a.score >= median - 0.5]);
    for (const grade of ['A', 'B', 'C', 'D', 'F']) cases.push([`grade=${grade}`, (a) => a.grade === grade]);
    let nonTrivial = 0;
    for (const [query, keep] of cases) {
      const expected = all.filter(keep).map((a) => `${a.chain}/${a.agent_id}`);
      const { status, body } = await get(`/v1/agents?limit=100&${query}`);
      expect(status, query).toBe(200);
      expect(body.items.map((a: any) => `${a.chain}/${a.agent_id}`), query).toEqual(expected);
      expect(body.count, query).toBe(expected.length);
      // A filtered listing pages by cursor too.
      const small = (await get(`/v1/agents?limit=2&${query}`)).body;
      expect(small.next_cursor === null, query).toBe(expected.length <= 2);
      if (small.next_cursor) {
        const next = (await get(`/v1/agents?limit=2&${query}&cursor=${small.next_cursor}`)).body;
        expect(next.items.map((a: any) => `${a.chain}/${a.agent_id}`), query).toEqual(expected.slice(2, 4));
      }
      if (expected.length > 0 && expected.length < all.length) nonTrivial++;
    }
    expect(nonTrivial).toBeGreaterThanOrEqual(10);
  });

  it('/v1/agents answers 400 bad_request naming the parameter', async () => {
    for (const [query, name] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=99999999999999999999999', 'limit must be at most 100'],
      ['limit=1&limit=2', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=1.5', 'offset'],
      ['grade=E', 'grade'],
      ['grade=a', 'grade'],
      ['min_score=high', 'min_score'],
      ['min_score=101', 'min_score'],
      ['metadata_quality=good', 'metadata_quality'],
      ['entity_type=robot', 'entity_type'],
      ['has_endpoint=yes', 'has_endpoint'],
      ['has_candidate_payment_activity=1', 'has_candidate_payment_activity'],
      ['has_verified_payment_activity=TRUE', 'has_verified_payment_activity'],
      ['chain=Base!', 'chain'],
      ['cursor=not-a-cursor', 'cursor'],
      [`cursor=${Buffer.from('[1,"base"]').toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from('[50,"base","1"]').toString('base64url')}&offset=0`, 'cursor and offset'],
      // Forged cursors: a score past 100, and a valid position padded past the 512 characters allowed.
      [`cursor=${Buffer.from('[101,"base","1"]').toString('base64url')}`, 'cursor: not a cursor from next_cursor'],
      [`cursor=${Buffer.from(`[50,${' '.repeat(400)}"base","1"]`).toString('base64url')}`, 'cursor: not a cursor from next_cursor'],
      ['offset=1000001', 'offset must be at most 1000000'],
    ]) {
      await expectBadRequest(`/v1/agents?${query}`, name!);
    }
    // A repeated parameter is named as repeated, whatever its kind, not reported as a bad value.
    for (const name of ['limit', 'grade', 'entity_type', 'has_endpoint', 'chain']) {
      const value = { limit: '5', grade: 'C', entity_type: 'agent', has_endpoint: 'true', chain: 'base' }[name]!;
      await expectBadRequest(`/v1/agents?${name}=${value}&${name}=${value}`, `${name} must be given once`);
    }
    await expectBadRequest('/api/v1/x402/browse?role=agent&role=service', 'role must be given once', false);
  });

  it('legacy stats endpoints need no key, serve the run’s bodies, and are public for 5 minutes', async () => {
    for (const [path, name] of [['/api/v1/x402/stats', 'x402'], ['/api/v1/erc8004/stats', 'erc8004']]) {
      const [stored] = await server.store.read(`SELECT body::VARCHAR AS body FROM run_stats WHERE name = $1 ORDER BY run_id DESC LIMIT 1`, [name!]);
      const { status, headers, body } = await get(path!, false);
      expect(status).toBe(200);
      expect(headers.get('cache-control')).toBe('public, max-age=300');
      expect(body).toEqual(JSON.parse(String(stored!.body)));
    }
    const erc = (await get('/api/v1/erc8004/stats', false)).body;
    expect(erc.total_agents).toBe(agentCount);
    expect(erc.chains).toEqual({ base: 20, ethereum: 10 });
    const x402 = (await get('/api/v1/x402/stats', false)).body;
    expect(x402.version).toBe('v1');
    expect(x402.total_transactions).toBeGreaterThan(0);
  });

  it('legacy x402 stats count as identified agents the agent payment addresses that were paid, not the unpaid ones', async () => {
    const paymentAddresses = (keep: (i: number) => boolean) => new Set(Array.from({ length: agentCount }, (_, k) => k + 1).filter(keep).map(payTo));
    const paid = paymentAddresses((i) => i % 2 === 0);
    // Odd agents are unpaid: some payment addresses (wallets of agents 5, 15 and 25; owner 8, paid
    // at by agent 29 only) have no payments at all.
    expect(paymentAddresses(() => true).size).toBeGreaterThan(paid.size);
    const x402 = (await get('/api/v1/x402/stats', false)).body;
    expect(x402.identified_agents).toBe(paid.size);
  });

  it('every figure of the three stats bodies is the documented count over the served rows', async () => {
    // docs/scoring.md "Stats" and spec 4.9 / 4.11: addresses are counted from address_scores (roles
    // over all chains, entity type of the best one), each payment once on its payer; the legacy x402
    // figures cover only the addresses with candidate payment activity.
    const grade = (score: number) => (score >= 90 ? 'A' : score >= 75 ? 'B' : score >= 50 ? 'C' : score >= 25 ? 'D' : 'F');
    const countBy = <T>(rows: T[], key: (row: T) => string, keys: string[]) =>
      Object.fromEntries(keys.map((k) => [k, rows.filter((row) => key(row) === k).length]));
    const grades = ['A', 'B', 'C', 'D', 'F'];
    const rows = (await server.store.read(
      `SELECT address, score, entity_type, candidate_as_payer, candidate_as_payee, verified_as_payer, verified_as_payee, is_known_erc8004_agent
         FROM address_scores`,
    )).map((r: any) => ({ ...r, score: Number(r.score) }));
    const paid = rows.filter((r: any) => r.candidate_as_payer + r.candidate_as_payee > 0);
    const scores = paid.map((r: any) => r.score);
    // Every payment of writeAgents, counted once: agent i (even) is paid 1 + i mod 7 times when i
    // is a multiple of 4, else once; one more on optimism.
    const payments = Array.from({ length: agentCount }, (_, k) => k + 1).filter((i) => i % 2 === 0)
      .reduce((sum, i) => sum + (i % 4 === 0 ? 1 + (i % 7) : 1), 0) + 1;
    const verified = rows.reduce((sum: number, r: any) => sum + r.verified_as_payer, 0);
    // The set-up has some of every kind the figures separate (else they would not be checked).
    expect(verified).toBeGreaterThan(0);
    expect(verified).toBeLessThan(payments);
    expect(rows.length).toBeGreaterThan(paid.length);
    expect(rows.some((r: any) => r.verified_as_payer === 0 && r.verified_as_payee > 0)).toBe(true);

    const v2 = (await get('/v1/stats')).body;
    expect(v2.reputation).toEqual({
      total_addresses: rows.length,
      scored_addresses: rows.length,
      entity_distribution: countBy(rows, (r: any) => r.entity_type, ['agent', 'service', 'wallet', 'hybrid', 'unknown']),
      score_distribution: countBy(rows, (r: any) => grade(r.score), grades),
    });
    expect(v2.payments).toEqual({
      addresses_with_candidate_payment_activity: paid.length,
      addresses_with_verified_payment_activity: rows.filter((r: any) => r.verified_as_payer + r.verified_as_payee > 0).length,
      total_candidate_transactions: payments,
      total_verified_transactions: verified,
      verification_status_summary: { candidate: payments - verified, verified },
    });

    const x402 = (await get('/api/v1/x402/stats', false)).body;
    expect(x402).toMatchObject({
      total_wallets: paid.length,
      distribution: countBy(paid, (r: any) => grade(r.score), grades),
      avg_score: Math.round((10 * scores.reduce((a: number, b: number) => a + b, 0)) / scores.length) / 10,
      max_score: Math.max(...scores),
      min_score: Math.min(...scores),
      wallets_as_payer: rows.filter((r: any) => r.candidate_as_payer > 0).length,
      wallets_as_payee: rows.filter((r: any) => r.candidate_as_payee > 0).length,
      wallets_both_roles: rows.filter((r: any) => r.candidate_as_payer > 0 && r.candidate_as_payee > 0).length,
      total_transactions: payments,
      roles: countBy(paid, (r: any) => r.entity_type, ['agent', 'hybrid', 'service']),
      identified_agents: paid.filter((r: any) => r.is_known_erc8004_agent).length,
      data_source: 'x402 candidate payments (EIP-3009 and Permit2) on base, ethereum, optimism',
    });

    const agents: number[] = (await get('/v1/agents?limit=100')).body.items.map((a: any) => Number(a.score));
    expect(agents).toHaveLength(agentCount);
    const erc = (await get('/api/v1/erc8004/stats', false)).body;
    const agentGrades = countBy(agents, (s) => grade(s), grades);
    expect(erc).toMatchObject({
      total_agents: agentCount,
      average_score: Math.round((10 * agents.reduce((a: number, b: number) => a + b, 0)) / agentCount) / 10,
      max_score: Math.max(...agents),
      min_score: Math.min(...agents),
      grade_distribution: Object.fromEntries(grades.map((g) => [g, { count: agentGrades[g], pct: Math.round((1000 * agentGrades[g]!) / agentCount) / 10 }])),
      scoring: { weights: { identity: 0.2, activity: 0.2, capability: 0.3, reach: 0.05, trust: 0.25 }, version: 'v1' },
    });
  });

  it('an operator\'s chains_active are the chains of its agents, not those where it has payments', async () => {
    const owners = new Map<string, number[]>();
    for (let i = 1; i <= agentCount; i++) owners.set(ownerOf(i), [...(owners.get(ownerOf(i)) ?? []), i]);
    const agentScores = new Map<number, number>((await get('/v1/agents?limit=100')).body.items.map((a: any) => [Number(a.agent_id), a.score]));
    // docs/scoring.md: the mean of the agents' scores (all chains) weighted by exp(-score / 30).
    const tailRisk = (scores: number[]) => Math.round(scores.reduce((sum, x) => sum + x * Math.exp(-x / 30), 0) / scores.reduce((sum, x) => sum + Math.exp(-x / 30), 0));
    for (const [owner, agents] of owners) {
      const { status, body } = await get(`/v1/reputation/${owner}`);
      expect(status).toBe(200);
      const operator = tailRisk(agents.map((i) => agentScores.get(i)!));
      expect(body.operator_score, owner).toMatchObject({
        score: operator,
        agent_count: agents.length,
        chains_active: [...new Set(agents.map(chainOf))].sort(),
      });
      // An owner's top-level score is its operator score.
      expect(body.score.value, owner).toBe(operator);
    }
    // Owner 1 owns agents on base and ethereum and is paid on optimism too.
    const { body } = await get(`/v1/reputation/${ownerOf(1)}`);
    expect([...body.subject.chains].sort()).toEqual(['base', 'ethereum', 'optimism']);
    expect(body.operator_score.chains_active).toEqual(['base', 'ethereum']);
    // The free plan's record redacts the operator score to its score and grade (spec 2.7: paid adds
    // agent_count and chains_active).
    const free = (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key;
    const redacted = (await (await fetch(`${server.url}/v1/reputation/${ownerOf(1)}`, { headers: { 'X-API-Key': free } })).json()) as any;
    expect(redacted.operator_score).toEqual({ score: body.operator_score.score, grade: body.operator_score.grade });
    // ?chain= keeps only that chain in chains and agents (spec 4.1): owner 1's agents 1, 2, 4 are on
    // base, agent 3 on ethereum.
    for (const chain of ['base', 'ethereum']) {
      const filtered = (await get(`/v1/reputation/${ownerOf(1)}?chain=${chain}`)).body;
      expect(filtered.chains.map((c: any) => c.chain), chain).toEqual([chain]);
      expect(filtered.agents.map((a: any) => [a.chain, Number(a.token_id)]).sort(), chain).toEqual(
        [1, 2, 3, 4].filter((i) => chainOf(i) === chain).map((i) => [chain, i]).sort(),
      );
    }
  });

  it('legacy identified lists paid agent payment addresses with their agent', async () => {
    const { status, headers, body } = await get('/api/v1/x402/identified', false);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('public, max-age=300');
    const paid = new Map<string, number[]>();
    for (let i = 2; i <= agentCount; i += 2) paid.set(`${chainOf(i)}/${payTo(i)}`, [...(paid.get(`${chainOf(i)}/${payTo(i)}`) ?? []), i]);
    expect(body.total).toBe(paid.size);
    expect(body.wallets).toHaveLength(paid.size);
    const agents = new Map<string, any>((await get('/v1/agents?limit=100')).body.items.map((a: any) => [`${a.chain}/${a.agent_id}`, a]));
    for (const w of body.wallets) {
      expect(Object.keys(w).sort()).toEqual(
        ['wallet', 'score', 'grade', 'role', 'total_txns', 'as_payer', 'as_payee', 'active_months', 'name', 'first_seen', 'last_seen', 'volume_usdc', 'counterparties', 'erc8004_chain', 'erc8004_token_id'].sort(),
      );
      expect(typeof w.erc8004_chain).toBe('string');
      expect(typeof w.erc8004_token_id).toBe('string');
      const agent = agents.get(`${w.erc8004_chain}/${w.erc8004_token_id}`);
      expect(agent.payment_address).toBe(w.wallet);
      expect(w.name).toBe(agent.name);
      expect(w).toMatchObject({ role: 'agent', as_payer: 0 });
      expect(w.as_payee).toBe(w.total_txns);
      expect(w.volume_usdc).toBeCloseTo(2.5 * w.total_txns);
      // The best agent of that payment address is named.
      const candidates = paid.get(`${w.erc8004_chain}/${w.wallet}`)!;
      expect(candidates.length).toBeGreaterThan(0);
      // ... the best of the agents paid there: highest score, then lowest id (README).
      const [best] = [...agents.values()]
        .filter((a) => a.chain === w.erc8004_chain && a.payment_address === w.wallet)
        .sort((a, b) => b.score - a.score || Number(a.agent_id) - Number(b.agent_id));
      expect(w.erc8004_token_id, w.wallet).toBe(best.agent_id);
      // The score is the address's top-level one, as the lookup (and browse) show it: most of
      // these wallets are owners, whose operator score differs from their chain's score.
      const { score } = (await get(`/v1/reputation/${w.wallet}`)).body;
      expect({ score: w.score, grade: w.grade }).toEqual({ score: score.value, grade: score.grade });
    }
    const scores = body.wallets.map((w: any) => w.score);
    expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
    const limited = (await get('/api/v1/x402/identified?limit=2', false)).body;
    expect(limited.total).toBe(paid.size);
    expect(limited.wallets).toEqual(body.wallets.slice(0, 2));
    for (const query of ['limit=0', 'limit=201', 'limit=x']) await expectBadRequest(`/api/v1/x402/identified?${query}`, 'limit', false);
    expect((await get('/api/v1/x402/identified?limit=200', false)).status).toBe(200);
  });

  it('legacy browse lists wallets scoring 25 or more, best first, with filters and offset paging', async () => {
    const { status, headers, body } = await get('/api/v1/x402/browse?limit=100', false);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('public, max-age=300');
    expect(body).toMatchObject({ offset: 0, limit: 100 });
    const [counts] = await server.store.read(
      `SELECT count(*) FILTER (WHERE s.score >= 25)::INTEGER AS listed, count(*) FILTER (WHERE s.score < 25)::INTEGER AS below
         FROM address_scores s WHERE address IN (SELECT address FROM chain_scores WHERE candidate_as_payer + candidate_as_payee > 0)`,
    );
    expect(Number(counts!.below)).toBeGreaterThan(0); // the payers score low and are left out
    expect(Number(counts!.listed)).toBeGreaterThan(3);
    expect(body.total).toBe(Number(counts!.listed));
    expect(body.wallets).toHaveLength(Number(counts!.listed));
    for (const w of body.wallets) {
      expect(Object.keys(w)).toEqual(['wallet', 'score', 'grade', 'role', 'total_txns', 'as_payer', 'as_payee', 'active_months', 'name', 'first_seen', 'last_seen', 'volume_usdc', 'counterparties']);
      expect(w.score).toBeGreaterThanOrEqual(25);
      expect(w.total_txns).toBe(w.as_payer + w.as_payee);
      expect(w.first_seen <= w.last_seen).toBe(true);
    }
    const order = body.wallets.map((w: any) => [w.score, w.wallet]);
    expect(order).toEqual([...order].sort((a, b) => b[0] - a[0] || a[1].localeCompare(b[1])));
    // Each wallet's payments and volume are its chains' rows summed, its counterparties and active
    // months distinct over every chain's payments, its role the entity type of its best chain.
    const perChain = await server.store.read(
      `WITH sides AS (
         SELECT payer AS address, payee AS counterparty, block_time FROM scored_payments
         UNION ALL SELECT payee, payer, block_time FROM scored_payments
       ),
       distinct_activity AS (
         SELECT address, count(DISTINCT counterparty)::INTEGER AS counterparties,
                count(DISTINCT date_trunc('month', block_time))::INTEGER AS active_months
           FROM sides GROUP BY address
       )
       SELECT address, arg_min(entity_type, {'score': -score, 'chain': chain}) AS role,
              sum(candidate_as_payer + candidate_as_payee)::INTEGER AS total_txns, sum(candidate_as_payer)::INTEGER AS as_payer,
              sum(candidate_as_payee)::INTEGER AS as_payee, any_value(d.active_months) AS active_months,
              strftime(min(first_candidate_tx_at), '%Y-%m-%dT%H:%M:%SZ') AS first_seen,
              strftime(max(last_candidate_tx_at), '%Y-%m-%dT%H:%M:%SZ') AS last_seen,
              sum(volume_usdc) AS volume_usdc, any_value(d.counterparties) AS counterparties
         FROM chain_scores JOIN distinct_activity d USING (address) GROUP BY address`,
    );
    const expected = new Map(perChain.map(({ address, ...rest }) => [address, rest]));
    for (const w of body.wallets) expect(w).toMatchObject(expected.get(w.wallet)!);
    // The name is its best agent's (README: highest score; /v1/agents lists them best first), or null.
    const agentsBestFirst: any[] = (await get('/v1/agents?limit=100')).body.items;
    for (const w of body.wallets) expect(w.name, w.wallet).toBe(agentsBestFirst.find((a) => a.payment_address === w.wallet)?.name ?? null);
    // Offset paging gives the same list.
    const paged: any[] = [];
    for (let offset = 0; offset < body.total; offset += 3) {
      const page = (await get(`/api/v1/x402/browse?limit=3&offset=${offset}`, false)).body;
      expect(page).toMatchObject({ total: body.total, offset, limit: 3 });
      paged.push(...page.wallets);
    }
    expect(paged).toEqual(body.wallets);
    // Filters.
    const grade = body.wallets[0].grade;
    const byGrade = (await get(`/api/v1/x402/browse?limit=100&grade=${grade}`, false)).body;
    expect(byGrade.wallets).toEqual(body.wallets.filter((w: any) => w.grade === grade));
    expect(byGrade.total).toBe(byGrade.wallets.length);
    const minScore = body.wallets[Math.floor(body.wallets.length / 2)].score;
    expect((await get(`/api/v1/x402/browse?limit=100&min_score=${minScore}`, false)).body.wallets).toEqual(body.wallets.filter((w: any) => w.score >= minScore));
    expect((await get('/api/v1/x402/browse?limit=100&role=agent', false)).body.wallets).toEqual(body.wallets.filter((w: any) => w.role === 'agent'));
    expect((await get('/api/v1/x402/browse?role=service', false)).body).toMatchObject({ total: 0, wallets: [] });
    expect((await get('/api/v1/x402/browse', false)).body.limit).toBe(50);
    for (const [query, name] of [
      ['limit=101', 'limit'], ['limit=0', 'limit'], ['offset=-3', 'offset'], ['offset=1000001', 'offset must be at most 1000000'], ['grade=G', 'grade'],
      ['role=merchant', 'role'], ['min_score=abc', 'min_score'], ['min_score=100.5', 'min_score must be at most 100'],
    ]) {
      await expectBadRequest(`/api/v1/x402/browse?${query}`, name!, false);
    }
  });

  it('health is ok after a fresh run, with the run and its age', async () => {
    const { status, headers, body } = await get('/health', false);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    const [run] = await server.store.read(`SELECT max(run_id) AS r FROM scoring_runs`);
    expect(body).toMatchObject({
      status: 'ok',
      // The service's own public address: the gate library sends agents there (spec 2.5).
      service_url: server.url,
      database: { ok: true, latency_ms: expect.any(Number) },
      redis: { configured: false },
      scoring: { last_run_id: Number(run!.r), model_version: 'v1', last_run_kind: 'full', stale: false },
    });
    expect(body.scoring.age_seconds).toBeLessThan(600);
    expect(body.scoring.last_scored_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Whole seconds since the server started, not milliseconds.
    expect(Number.isInteger(body.uptime_seconds)).toBe(true);
    expect(body.uptime_seconds).toBeGreaterThanOrEqual(0);
    expect(body.uptime_seconds).toBeLessThanOrEqual(Math.ceil((Date.now() - startedAt) / 1000));
  });
});

describe('health: degraded and unhealthy', () => {
  const servers: http.Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

  // The public app over a given store, as startServer builds it, on a free port.
  async function serve(store: Store, redisUrl?: string, now?: () => Date) {
    const app = createApp({ store, keys: { verify: () => ({ valid: false, code: 'missing' }) } as any, log: silentLogger, signupUrl: 'https://example.test/signup', redisUrl, now, identity: { deps: { serviceBaseUrl: () => '' } } as unknown as IdentityService });
    const server = http.createServer(app.callback());
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const res = await fetch(`${url}/health`);
    return { status: res.status, body: (await res.json()) as any };
  }
  const runAt = (scoredAt: string): Store =>
    ({ read: async () => [{ run_id: 7, model_version: 'v1', kind: 'incremental', scored_at: scoredAt }] }) as unknown as Store;

  it('503 unhealthy when the database does not answer, never a stack trace', async () => {
    const broken = { read: async () => Promise.reject(new Error('store is closed\n    at somewhere')) } as unknown as Store;
    const { status, body } = await serve(broken);
    expect(status).toBe(503);
    expect(body).toMatchObject({ status: 'unhealthy', database: { ok: false, error: 'store is closed' } });
  });

  it('Redis configured and answering: ok; configured at a dead port: degraded, within the timeout', async () => {
    const now = () => new Date('2025-11-20T12:00:00Z');
    const up = await serve(runAt('2025-11-20T11:00:00Z'), sharedRedisUrl, now);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ status: 'ok', redis: { configured: true, ok: true }, scoring: { last_run_id: 7, age_seconds: 3600, stale: false } });
    const started = Date.now();
    const down = await serve(runAt('2025-11-20T11:00:00Z'), `redis://127.0.0.1:${await freePort()}`, now);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ status: 'degraded', redis: { configured: true, ok: false, error: expect.any(String) } });
  });

  it('a run older than 24 h is degraded', async () => {
    const { status, body } = await serve(runAt('2025-11-18T11:00:00Z'), undefined, () => new Date('2025-11-20T12:00:00Z'));
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'degraded', scoring: { stale: true, age_seconds: 2 * 86_400 + 3_600 }, checked_at: '2025-11-20T12:00:00Z' });
  });

  it('a run stamped after the server\'s clock (clocks apart) is 0 seconds old, not negative, and ok', async () => {
    const { status, body } = await serve(runAt('2025-11-20T12:00:30Z'), undefined, () => new Date('2025-11-20T12:00:00.250Z'));
    expect(status).toBe(200);
    // Whole seconds, without the milliseconds of the clock.
    expect(body).toMatchObject({ status: 'ok', scoring: { age_seconds: 0, stale: false }, checked_at: '2025-11-20T12:00:00Z' });
  });

  it('a server with Redis at a dead port answers /health 200 degraded', async () => {
    const dataDir = tempDataDir('health-dead-redis');
    const server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', REDIS_URL: `redis://127.0.0.1:${await freePort()}` }), silentLogger);
    try {
      const res = await fetch(`${server.url}/health`);
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).redis).toMatchObject({ configured: true, ok: false });
    } finally {
      await server.close();
    }
  });
});

// Browse at its edges, over serving rows written as a scoring run leaves them in address_scores:
// the floor of 25 (spec 4.11: browse scores are 25-100), equal scores in address order, an
// inclusive min_score.
describe('legacy browse: the score floor and equal scores', () => {
  const dataDir = tempDataDir('browse-floor');
  let server: RunningServer;
  const wallet = (n: number) => addr('e2', n);
  // [wallet, score, payments, role]: written out of order; wallet 5 scores 30 but has no payments.
  const rows: [number, number, number, string][] = [[4, 25, 1, 'service'], [1, 24, 3, 'service'], [3, 25, 2, 'service'], [2, 26, 1, 'wallet'], [5, 30, 0, 'service']];

  beforeAll(async () => {
    // More keyless requests in a second than the default per-IP limit lets through.
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', SCORE_INTERVAL_SECONDS: '86400', IP_RATE_PER_SECOND: '100' }), silentLogger);
    await server.store.write(async (tx) => {
      for (const [n, score, payments, role] of rows) {
        await tx.run(
          `INSERT INTO address_scores (run_id, address, score, grade, chains, agent_count, chains_active, entity_type, candidate_as_payer, candidate_as_payee,
                                       verified_as_payer, verified_as_payee, is_known_erc8004_agent, volume_usdc, counterparties_count, active_months, active_days,
                                       first_candidate_tx_at, last_candidate_tx_at)
           VALUES (1, $1, $2, $3, ['base'], 0, [], $6, 0, $4, 0, 0, false, $5, $4, 1, 1, TIMESTAMP '2025-11-03 10:00:00', TIMESTAMP '2025-11-03 10:00:00')`,
          [wallet(n), score, score >= 25 ? 'D' : 'F', payments, payments * 2.5, role],
        );
      }
    });
  });
  afterAll(() => server?.close());

  const browse = async (query = '') => (await (await fetch(`${server.url}/api/v1/x402/browse${query}`)).json()) as { total: number; wallets: { wallet: string; score: number }[] };

  it('lists a score of exactly 25, not 24; equal scores by address; min_score keeps a score equal to it', async () => {
    const listed = [[wallet(2), 26], [wallet(3), 25], [wallet(4), 25]];
    const all = await browse();
    expect(all.total).toBe(3);
    expect(all.wallets.map((w) => [w.wallet, w.score])).toEqual(listed);
    expect((await browse('?min_score=25')).wallets.map((w) => [w.wallet, w.score])).toEqual(listed);
    expect((await browse('?min_score=26')).wallets.map((w) => w.wallet)).toEqual([wallet(2)]);
    // Paging cuts between the two equal scores the same way every time.
    expect((await browse('?limit=2&offset=1')).wallets.map((w) => w.wallet)).toEqual([wallet(3), wallet(4)]);
    expect((await browse('?limit=1&offset=2')).wallets.map((w) => w.wallet)).toEqual([wallet(4)]);
  });

  it('role filters by entity type, wallet included (README: agent, service, hybrid or wallet)', async () => {
    expect((await browse('?role=wallet')).wallets.map((w) => w.wallet)).toEqual([wallet(2)]);
    expect((await browse('?role=service')).wallets.map((w) => w.wallet)).toEqual([wallet(3), wallet(4)]);
  });

  // Last: it adds a wallet.
  it('as_payer and as_payee count candidate payments, verified or not, and total_txns is both', async () => {
    // Three payments sent (one verified) and one received (not verified).
    await server.store.write((tx) =>
      tx.run(
        `INSERT INTO address_scores (run_id, address, score, grade, chains, agent_count, chains_active, entity_type, candidate_as_payer, candidate_as_payee,
                                     verified_as_payer, verified_as_payee, is_known_erc8004_agent, volume_usdc, counterparties_count, active_months, active_days,
                                     first_candidate_tx_at, last_candidate_tx_at)
         VALUES (1, $1, 27, 'D', ['base'], 0, [], 'wallet', 3, 1, 1, 0, false, 10, 4, 1, 1, TIMESTAMP '2025-11-03 10:00:00', TIMESTAMP '2025-11-03 10:00:00')`,
        [wallet(6)],
      ),
    );
    const [listed] = (await browse('?min_score=27')).wallets as any[];
    expect(listed).toMatchObject({ wallet: wallet(6), total_txns: 4, as_payer: 3, as_payee: 1 });
  });
});

describe('legacy identified: the default page size', () => {
  const dataDir = tempDataDir('browse-identified');
  const identified = 52;
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger);
    // 52 agents on base, each with an owner of its own and paid once there: 52 identified wallets.
    await server.store.write(async (tx) => {
      for (let i = 1; i <= identified; i++) {
        const owner = addr('a1', i);
        await tx.run(`INSERT INTO imported_agents VALUES ('imp_test', 'base', $1, $2, $3, $4, 100, NULL, NULL)`, [registry, String(i), owner, `https://agent${i}.example/agent.json`]);
        const payer = addr('d1', i);
        await tx.run(
          `INSERT INTO imported_transfers VALUES ('imp_test', 'base', $1, TIMESTAMP '2025-11-03 10:00:00', $2, 0, $3, $4, $5, 2500000, $4, true)`,
          [1000 + i, `0x${i.toString(16).padStart(64, 'e')}`, usdc, payer, owner],
        );
      }
    });
    await (await server.jobs.run('score', {})).done;
  });
  afterAll(() => server?.close());

  it('without a limit answers 50 wallets (spec 4.11: default 50), total counting them all', async () => {
    const res = await fetch(`${server.url}/api/v1/x402/identified`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { total: number; wallets: unknown[] };
    expect(body.total).toBe(identified);
    expect(body.wallets).toHaveLength(50);
    const all = (await (await fetch(`${server.url}/api/v1/x402/identified?limit=200`)).json()) as { wallets: unknown[] };
    expect(all.wallets).toHaveLength(identified);
    expect(body.wallets).toEqual(all.wallets.slice(0, 50));
  });
});
