// Which registration file an agent is scored with (docs/scoring.md, "Agents"): the newest fetch of
// it, except a transient failure (timeout, network error, HTTP 5xx or 429) within 7 days of the
// last time the same URI answered. Rows are written as the fetch-metadata job leaves them, and
// each step is an incremental run, checked against a full run at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { tempDataDir } from './helpers/temp.ts';

const owner = `0x${'0d'.repeat(20)}`;
const registry = `0x${'8e'.repeat(20)}`;
const agentId = 9;
const uri = 'https://nine.example.org/agent.json';
const firstFetch = Date.parse('2025-11-01T00:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('the registration file an agent is scored with', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('scoring-registration-files'), readConnections: 1 });
    await store.write((tx) =>
      tx.run(`INSERT INTO imported_agents VALUES ('imp_agents', 'base', $1, $2, $3, $4, 100, NULL, NULL)`, [registry, String(agentId), owner, uri]),
    );
  });
  afterAll(() => store?.close());

  /** A fetch as the job appends it: a real file (status ok) or a failure of that status. */
  const fetched = (afterMs: number, status: 'ok' | 'timeout' | 'network_error' | 'server_error' | 'http_error') =>
    store.write((tx) =>
      tx.run(
        `INSERT INTO registration_files VALUES ('base', $1, $2, $3, make_timestamp($4::BIGINT * 1000), $5,
           $6, NULL, $7, $8, NULL, true, true, $9::JSON, '[]', $10, $11)`,
        status === 'ok'
          ? [registry, String(agentId), uri, String(firstFetch + afterMs), status, 'https', 'Nine Research Agent',
             'Answers research questions over paid x402 endpoints.', '[{"name": "web", "endpoint": "https://nine.example.org"}]', 'real', null]
          : [registry, String(agentId), uri, String(firstFetch + afterMs), status, null, null, null, null, 'unknown', `${status} at ${afterMs / HOUR} h`],
      ),
    );
  const scoredWith = async () => {
    await runScoring(store);
    const [row] = await store.read('SELECT metadata_quality, name, identity FROM agent_scores WHERE chain = $1 AND agent_id = $2', ['base', agentId]);
    return row!;
  };

  it('keeps the last answer through transient failures for 7 days, then and for definite failures takes the newest', async () => {
    await fetched(0, 'ok');
    const good = await scoredWith();
    expect(good).toMatchObject({ metadata_quality: 'real', name: 'Nine Research Agent' });
    // A day later the host timed out, then dropped the connection, then answered 503: the same file.
    for (const [after, status] of [[DAY, 'timeout'], [2 * DAY, 'network_error'], [3 * DAY, 'server_error']] as const) {
      await fetched(after, status);
      expect(await scoredWith(), status).toEqual(good);
    }
    // Still failing more than 7 days after the URI last answered: the failure counts.
    await fetched(7 * DAY + HOUR, 'timeout');
    expect(await scoredWith()).toMatchObject({ metadata_quality: 'unknown', name: null });
    expect(Number((await scoredWith()).identity)).toBeLessThan(Number(good.identity));
    // Back, then a 404 an hour later: the file is gone, which is not transient.
    await fetched(8 * DAY, 'ok');
    expect(await scoredWith()).toEqual(good);
    await fetched(8 * DAY + HOUR, 'http_error');
    expect(await scoredWith()).toMatchObject({ metadata_quality: 'unknown', name: null });
    // Every step above was an incremental run; a full run agrees.
    const incremental = await store.read('SELECT * EXCLUDE (run_id) FROM agent_scores');
    expect((await runScoring(store, { full: true })).kind).toBe('full');
    expect(await store.read('SELECT * EXCLUDE (run_id) FROM agent_scores')).toEqual(incremental);
  });
});
