// The fetch-metadata job end to end: a real DuckDB store, registry events inserted as ingestion
// would, registration files served over HTTPS on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../pipeline/log.ts';
import { fetchMetadataJob } from '../pipeline/metadata/fetch-metadata-job.ts';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { sendJson, startLoopbackServer, type LoopbackServer } from './helpers/loopback-server.ts';
import { tempDataDir } from './helpers/temp.ts';

const registry = '0x8004a169fb4a3325136eb29fa0ceb6d2e539a432';
const requests: string[] = [];
let server: LoopbackServer;
// The late agent's website answers only once released (see 'stamps each row ...').
let releaseLateSite: (() => void) | null = null;
let lateSiteAsked: () => void;
const lateSiteRequested = new Promise<void>((resolve) => (lateSiteAsked = resolve));
let store: Store;

const realAgent = (origin: string) => ({
  type: 'https://eips.ethereum.org/EIPS/eip-8004#registration-v1',
  name: 'Loopback Yield Pilot',
  description: 'Rebalances stablecoin yield across lending markets; source at https://github.com/loopback/yield-pilot',
  image: `${origin}/logo.png`,
  services: [
    { name: 'A2A', endpoint: `${origin}/agents/1/card.json`, version: '0.3.0' },
    { name: 'web', endpoint: `${origin}/site` },
  ],
  x402Support: true,
  active: true,
  supportedTrust: ['reputation'],
});

beforeAll(async () => {
  server = await startLoopbackServer(
    (req, res, origin) => {
      requests.push(req.url ?? '');
      switch (req.url) {
        case '/agents/1.json':
          return sendJson(res, realAgent(origin));
        case '/agents/1/card.json':
          return sendJson(res, { name: 'Loopback Yield Pilot' });
        case '/site':
          res.writeHead(200, { 'content-type': 'text/html' });
          return void res.end('<h1>Yield Pilot</h1><p>Paid over x402.</p>');
        case '/agents/6.json':
          return sendJson(res, { name: 'Imported Oracle', description: 'Publishes gas price forecasts for Base every block.' });
        case '/late/agent.json':
          return sendJson(res, { ...realAgent(origin), name: 'Late Agent', services: [{ name: 'web', endpoint: `${origin}/late/site` }] });
        case '/retry/busy.json':
          return sendJson(res, { error: 'maintenance' }, 503);
        case '/late/quick.json':
          return sendJson(res, { name: 'Quick Agent', description: 'Answers at once.' });
        case '/late/site':
          releaseLateSite = () => {
            res.writeHead(200, { 'content-type': 'text/html' });
            res.end('<h1>Late Agent</h1>');
          };
          return lateSiteAsked();
        default:
          return sendJson(res, { error: 'not found' }, 404);
      }
    },
    { tls: true },
  );
  store = await openStore({ dataDir: tempDataDir('metadata-job') });
  const placeholder = Buffer.from(JSON.stringify({ name: 'Agent #2', description: '' })).toString('base64');
  const inline = JSON.stringify({ name: 'Inline Agent', description: 'Stores its whole registration on chain as JSON.' });
  await store.write(async (tx) => {
    const register = (chain: string, block: number, agentId: number, uri: string) =>
      tx.run('INSERT INTO agent_registrations VALUES ($1, $2, $3, 0, $4, $5, $6, $7)', [
        chain,
        block,
        `0x${block.toString(16).padStart(64, '0')}`,
        registry,
        agentId,
        uri,
        '0x00000000000000000000000000000000000000aa',
      ]);
    await register('devnet', 10, 1, `${server.origin}/agents/1.json`);
    await register('devnet', 11, 2, `${server.origin}/agents/2-old.json`);
    await register('devnet', 12, 3, `${server.origin}/agents/3-missing.json`);
    await register('devnet', 13, 4, inline);
    await register('other', 14, 5, `data:application/json;base64,${placeholder}`);
    // Agent 2 moved its file on-chain: the newest URI is the one to fetch.
    await tx.run('INSERT INTO agent_uri_updates VALUES ($1, 20, $2, 1, $3, 2, $4, $5)', [
      'devnet',
      `0x${'20'.padStart(64, '0')}`,
      registry,
      `data:application/json;base64,${placeholder}`,
      '0x00000000000000000000000000000000000000aa',
    ]);
    // Imported agents: 6 is known only from the file; 1 is on-chain too, where the chain wins.
    await tx.run("INSERT INTO imports VALUES ('imp_1', 'agents', 'agents.jsonl', 'jsonl', 2, 2, 0, now())");
    await tx.run(
      `INSERT INTO imported_agents VALUES
         ('imp_1', 'devnet', $1, 6, '0xbb', $2, 30, '0x30', NULL),
         ('imp_1', 'devnet', $1, 1, '0xbb', $3, 10, '0x10', NULL)`,
      [registry.toUpperCase().replace('0X', '0x'), `${server.origin}/agents/6.json`, `${server.origin}/agents/1-stale.json`],
    );
  });
});

afterAll(async () => {
  await store.close();
});

const options = () => ({ allowPrivateAddresses: true, ca: server.ca, concurrency: 2 });

describe('fetchMetadataJob', () => {
  it('fetches the current URI of each agent, in pages, and records files and evidence', async () => {
    const progress: { done: number; total: number }[] = [];
    const first = await fetchMetadataJob({ store, log: silentLogger }, { ...options(), chain: 'devnet', limit: 2, onProgress: (p) => progress.push(p) });
    expect(first.selected).toBe(2);
    expect(progress.at(-1)).toEqual({ done: 2, total: 2 });

    const rest = await fetchMetadataJob({ store, log: silentLogger }, { ...options(), chain: 'devnet' });
    expect(rest).toEqual({
      selected: 3,
      byStatus: { ok: 2, http_error: 1 },
      byQuality: { real: 2, placeholder: 0, unknown: 1 },
    });

    const files = await store.read(
      `SELECT CAST(agent_id AS INTEGER) AS agent_id, agent_uri, fetch_status, metadata_kind, name, description, image, active, x402_support, services::VARCHAR AS services,
              supported_trust::VARCHAR AS supported_trust, metadata_quality, error IS NOT NULL AS has_error, length(content_sha256)::INTEGER AS sha_length
       FROM registration_files WHERE chain = 'devnet' ORDER BY agent_id`,
    );
    expect(files.map((f) => [f.agent_id, f.fetch_status, f.metadata_kind, f.name, f.metadata_quality])).toEqual([
      [1, 'ok', 'https', 'Loopback Yield Pilot', 'real'],
      [2, 'ok', 'data', 'Agent #2', 'placeholder'],
      [3, 'http_error', null, null, 'unknown'],
      [4, 'ok', 'json', 'Inline Agent', 'real'],
      [6, 'ok', 'https', 'Imported Oracle', 'real'],
    ]);
    expect(files[0]).toMatchObject({
      agent_uri: `${server.origin}/agents/1.json`,
      description: realAgent(server.origin).description,
      image: `${server.origin}/logo.png`,
      active: true,
      x402_support: true,
      supported_trust: '["reputation"]',
      sha_length: 64,
    });
    expect(JSON.parse(String(files[0]!.services))).toEqual(realAgent(server.origin).services);
    expect(files[1]!.agent_uri).toMatch(/^data:application\/json;base64,/);
    expect(files[2]).toMatchObject({ has_error: true, sha_length: null });
    expect(requests).not.toContain('/agents/2-old.json');
    expect(requests).not.toContain('/agents/1-stale.json');

    const evidence = await store.read(
      `SELECT CAST(agent_id AS INTEGER) AS agent_id, has_a2a_agent_card, website_url, website_reachable, website_mentions_mcp,
              website_mentions_x402, github_url, github_stars
       FROM agent_evidence ORDER BY agent_id`,
    );
    // No evidence row for agent 3, whose file could not be fetched.
    expect(evidence.map((e) => e.agent_id)).toEqual([1, 2, 4, 6]);
    expect(evidence[0]).toEqual({
      agent_id: 1,
      has_a2a_agent_card: true,
      website_url: `${server.origin}/site`,
      website_reachable: true,
      website_mentions_mcp: false,
      website_mentions_x402: true,
      github_url: 'https://github.com/loopback/yield-pilot',
      github_stars: null,
    });
  });

  it('fetches other chains when no chain is given, and nothing fetched recently again', async () => {
    const others = await fetchMetadataJob({ store, log: silentLogger }, options());
    expect(others).toMatchObject({ selected: 1, byQuality: { placeholder: 1 } });

    const before = requests.length;
    const again = await fetchMetadataJob({ store, log: silentLogger }, options());
    expect(again).toEqual({ selected: 0, byStatus: {}, byQuality: { real: 0, placeholder: 0, unknown: 0 } });
    expect(requests.length).toBe(before);
    expect(await store.read('SELECT count(*)::INTEGER AS n FROM registration_files')).toEqual([{ n: 6 }]);
  });

  it('fetches again once the last fetch is older than refetchAfterHours, or the URI changed', async () => {
    const stale = await fetchMetadataJob({ store, log: silentLogger }, { ...options(), refetchAfterHours: 0 });
    expect(stale.selected).toBe(6);

    await store.write((tx) =>
      tx.run("INSERT INTO agent_uri_updates VALUES ('devnet', 30, $1, 0, $2, 1, $3, '0xaa')", [`0x${'30'.padStart(64, '0')}`, registry, `${server.origin}/agents/6.json`]),
    );
    const moved = await fetchMetadataJob({ store, log: silentLogger }, options());
    expect(moved).toMatchObject({ selected: 1, byQuality: { real: 1 } });
    const newest = await store.read(
      "SELECT agent_uri, name FROM registration_files WHERE chain = 'devnet' AND agent_id = 1 ORDER BY fetched_at DESC LIMIT 1",
    );
    expect(newest).toEqual([{ agent_uri: `${server.origin}/agents/6.json`, name: 'Imported Oracle' }]);
  });

  it('stamps each row when it is written, so a file fetched before a scoring run but written after it is newer than that run saw', async () => {
    // The late agent is fetched first, then waits for its website while 50 others are fetched and
    // committed in a batch. A scoring run then takes the newest fetched_at as its watermark
    // (sql/score/inputs.sql) and picks up only rows newer than it (sql/score/changed_agents.sql).
    await store.write(async (tx) => {
      await tx.run(`INSERT INTO agent_registrations VALUES ('late', 200, $1, 0, $2, 0, $3, '0xaa')`, [`0x${'c8'.padStart(64, '0')}`, registry, `${server.origin}/late/agent.json`]);
      await tx.run(
        `INSERT INTO agent_registrations
         SELECT 'late', 201 + i, printf('0x%064x', 1000 + i), 0, $1, 1 + i, $2, '0xaa' FROM range(50) t(i)`,
        [registry, `${server.origin}/late/quick.json`],
      );
    });
    // The late site answers only once the others are committed: on a loaded machine that can take
    // longer than the default 5 s timeout, which would write the late agent first.
    const job = fetchMetadataJob({ store, log: silentLogger }, { ...options(), chain: 'late', concurrency: 4, timeoutMs: 60_000 });
    await lateSiteRequested;
    const [watermark] = await waitFor(async () => {
      const rows = await store.read(`SELECT count(*)::INTEGER AS n, max(fetched_at)::VARCHAR AS newest FROM registration_files WHERE chain = 'late'`);
      return rows[0]!.n === 50 ? rows : null;
    });
    releaseLateSite!();
    await job;
    const [late] = await store.read(`SELECT fetched_at::VARCHAR AS fetched_at FROM registration_files WHERE chain = 'late' AND agent_id = 0`);
    expect(String(late!.fetched_at) > String(watermark!.newest)).toBe(true);
    const [evidence] = await store.read(`SELECT checked_at::VARCHAR AS checked_at FROM agent_evidence WHERE chain = 'late' AND agent_id = 0`);
    expect(String(evidence!.checked_at) > String(watermark!.newest)).toBe(true);
  });

  it('tries a transient failure again after retryAfterHours, an answered URI only after refetchAfterHours', async () => {
    const file = Buffer.from(JSON.stringify({ name: 'Steady Agent', description: 'Always answers.' })).toString('base64');
    await store.write((tx) =>
      tx.run(
        `INSERT INTO agent_registrations VALUES ('retry', 1, $1, 0, $2, 1, $3, '0xaa'), ('retry', 2, $4, 0, $2, 2, $5, '0xaa')`,
        [`0x${'71'.padStart(64, '0')}`, registry, `${server.origin}/retry/busy.json`, `0x${'72'.padStart(64, '0')}`, `data:application/json;base64,${file}`],
      ),
    );
    const first = await fetchMetadataJob({ store, log: silentLogger }, { ...options(), chain: 'retry' });
    expect(first).toMatchObject({ selected: 2, byStatus: { ok: 1, server_error: 1 } });
    // Fetched just now: nothing to do within the hour, then only the 503 is tried again.
    expect((await fetchMetadataJob({ store, log: silentLogger }, { ...options(), chain: 'retry' })).selected).toBe(0);
    const retried = await fetchMetadataJob({ store, log: silentLogger }, { ...options(), chain: 'retry', retryAfterHours: 0 });
    expect(retried).toMatchObject({ selected: 1, byStatus: { server_error: 1 } });
  });

  it('by default fetches an answered URI again after 24 hours and a transient failure after an hour, never-fetched agents first, then the stalest', async () => {
    const uriOf = (name: string) => dataUri({ name, description: 'Ages in the store between two fetches.' });
    const agents = ['Fresh Agent', 'Stale Agent', 'Busy Agent', 'New Agent'];
    await store.write(async (tx) => {
      for (const [i, name] of agents.entries()) {
        await tx.run(`INSERT INTO agent_registrations VALUES ('aged', $1, $2, 0, $3, $1, $4, '0xaa')`, [i + 1, `0x${(i + 1).toString(16).padStart(64, '0')}`, registry, uriOf(name)]);
      }
      // Fresh answered 2 h ago, Stale 25 h ago; Busy failed transiently 2 h ago; New was never fetched.
      for (const [i, hoursAgo, status] of [[0, 2, 'ok'], [1, 25, 'ok'], [2, 2, 'server_error']] as const) {
        await tx.run(
          `INSERT INTO registration_files VALUES ('aged', $1, $2, $3, make_timestamp($4::BIGINT * 1000), $5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'unknown', NULL)`,
          [registry, i + 1, uriOf(agents[i]!), String(Date.now() - hoursAgo * 3_600_000), status],
        );
      }
    });
    const fetchNext = async () => {
      const { selected } = await fetchMetadataJob({ store, log: silentLogger }, { ...options(), chain: 'aged', limit: 1 });
      if (selected === 0) return null;
      const [newest] = await store.read("SELECT name FROM registration_files WHERE chain = 'aged' ORDER BY fetched_at DESC LIMIT 1");
      return newest!.name;
    };
    const fetched = [];
    for (let i = 0; i < 4; i++) fetched.push(await fetchNext());
    expect(fetched).toEqual(['New Agent', 'Stale Agent', 'Busy Agent', null]);
  });

  it('takes the later of two events in one block, and the newest import that has a URI', async () => {
    await store.write(async (tx) => {
      await tx.run(`INSERT INTO agent_registrations VALUES ('order', 5, $1, 0, $2, 1, $3, '0xaa')`, [`0x${'5'.padStart(64, '0')}`, registry, dataUri({ name: 'Registered Name' })]);
      await tx.run(`INSERT INTO agent_uri_updates VALUES ('order', 5, $1, 1, $2, 1, $3, '0xaa')`, [`0x${'5'.padStart(64, '0')}`, registry, dataUri({ name: 'Updated Name' })]);
      await tx.run(`INSERT INTO imports VALUES
        ('imp_old', 'agents', 'old.jsonl', 'jsonl', 1, 1, 0, TIMESTAMP '2026-01-01'),
        ('imp_mid', 'agents', 'mid.jsonl', 'jsonl', 1, 1, 0, TIMESTAMP '2026-02-01'),
        ('imp_new', 'agents', 'new.jsonl', 'jsonl', 1, 1, 0, TIMESTAMP '2026-03-01')`);
      await tx.run(
        `INSERT INTO imported_agents VALUES
           ('imp_old', 'order', $1, 2, '0xbb', $2, NULL, NULL, NULL),
           ('imp_mid', 'order', $1, 2, '0xbb', $3, NULL, NULL, NULL),
           ('imp_new', 'order', $1, 2, '0xbb', NULL, NULL, NULL, NULL)`,
        [registry, dataUri({ name: 'Oldest Import' }), dataUri({ name: 'Newer Import' })],
      );
    });
    expect(await fetchMetadataJob({ store, log: silentLogger }, { ...options(), chain: 'order' })).toMatchObject({ selected: 2, byStatus: { ok: 2 } });
    const names = await store.read("SELECT CAST(agent_id AS INTEGER) AS agent_id, name FROM registration_files WHERE chain = 'order' ORDER BY agent_id");
    expect(names).toEqual([
      { agent_id: 1, name: 'Updated Name' },
      { agent_id: 2, name: 'Newer Import' },
    ]);
  });

  it('writes no evidence for a document that is not a JSON object', async () => {
    const listed = `data:application/json,${JSON.stringify([{ name: 'Listed Agent', services: [{ name: 'web', endpoint: `${server.origin}/site` }] }])}`;
    await store.write((tx) => tx.run(`INSERT INTO agent_registrations VALUES ('array', 1, $1, 0, $2, 1, $3, '0xaa')`, [`0x${'1'.padStart(64, '0')}`, registry, listed]));
    expect(await fetchMetadataJob({ store, log: silentLogger }, { ...options(), chain: 'array' })).toMatchObject({ byStatus: { ok: 1 }, byQuality: { unknown: 1 } });
    expect(await store.read("SELECT count(*)::INTEGER AS n FROM agent_evidence WHERE chain = 'array'")).toEqual([{ n: 0 }]);
  });

  it('writes many agents in several small batches', async () => {
    const file = Buffer.from(JSON.stringify({ name: 'Bulk Agent', description: 'One of many agents written in batches.' })).toString('base64');
    await store.write((tx) =>
      tx.run(
        `INSERT INTO agent_registrations
         SELECT 'bulk', 100 + i, printf('0x%064x', i), 0, $1, i, 'data:application/json;base64,' || $2, '0xaa' FROM range(120) t(i)`,
        [registry, file],
      ),
    );
    const progress: number[] = [];
    const bulk = await fetchMetadataJob({ store, log: silentLogger }, { ...options(), chain: 'bulk', concurrency: 8, onProgress: (p) => progress.push(p.done) });
    expect(bulk).toEqual({ selected: 120, byStatus: { ok: 120 }, byQuality: { real: 120, placeholder: 0, unknown: 0 } });
    expect(progress).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
    expect(await store.read("SELECT count(DISTINCT agent_id)::INTEGER AS files FROM registration_files WHERE chain = 'bulk'")).toEqual([{ files: 120 }]);
    expect(await store.read("SELECT count(*)::INTEGER AS rows FROM agent_evidence WHERE chain = 'bulk'")).toEqual([{ rows: 120 }]);
  });
});

const dataUri = (file: unknown) => `data:application/json;base64,${Buffer.from(JSON.stringify(file)).toString('base64')}`;

async function waitFor<T>(probe: () => Promise<T | null>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
