// The operator token leaves in exactly one poll answer, also when many polls of one verified session
// race (spec 4.4): 200 concurrent polls over real HTTP, from 200 client addresses, 20 times. The
// figure is in docs/reliability.md.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { tempDataDir } from './helpers/temp.ts';
import { clearPerson, newSession, poll, sdnTinyCsv, submitSandbox } from './helpers/identity.ts';

const pollsAtOnce = 200;
const rounds = 20;

describe('the operator token under concurrent polls', () => {
  const dataDir = tempDataDir('identity-token-once');
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', SANCTIONS_LIST_SOURCE: sdnTinyCsv, TRUST_PROXY_HOPS: '1' }), silentLogger);
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    key = (await createAccount(server.store, { plan: 'pro' }, server.keys)).api_key;
  });
  afterAll(() => server?.close());

  it(`${pollsAtOnce} concurrent polls of a verified session give exactly one token, ${rounds} times over`, async () => {
    const tokens = new Set<string>();
    for (let round = 0; round < rounds; round++) {
      const s = await newSession(server.url, key);
      await submitSandbox(s.verify_url, clearPerson);
      const answers = await Promise.all(
        Array.from({ length: pollsAtOnce }, (_, i) => poll(s.poll_url, s.poll_secret, { 'X-Forwarded-For': `10.${round}.${i >> 8}.${i & 255}` })),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
      const delivered = answers.filter((a) => a.body.status === 'verified');
      expect(delivered, `round ${round}`).toHaveLength(1);
      expect(answers.filter((a) => a.body.status === 'consumed')).toHaveLength(pollsAtOnce - 1);
      expect(answers.filter((a) => 'operator_token' in a.body)).toHaveLength(1);
      tokens.add(delivered[0]!.body.operator_token);
    }
    expect(tokens.size).toBe(rounds);
    // One token row per session: no poll issued a token that went undelivered.
    const [row] = await server.store.read("SELECT count(*)::INTEGER AS tokens, count(DISTINCT session_id)::INTEGER AS sessions FROM operator_tokens WHERE source = 'session'");
    expect(row).toEqual({ tokens: rounds, sessions: rounds });
  }, 300_000);
});
