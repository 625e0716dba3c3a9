// Crash safety of the database owner: `reputation serve` is killed with SIGKILL while clients
// create accounts through its admin channel. A write the server acknowledged (a 200 carrying the
// new account) must be there after every restart; unacknowledged ones may or may not be.
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { cliEnv, startServe, stopServe, type ServeProcess } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

const kills = 20;
const clientsPerRound = 4;

async function createAccount(serve: ServeProcess, n: number): Promise<string | null> {
  try {
    const res = await fetch(`${serve.adminUrl}/admin/operations/accounts.create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'starter', name: `crash-${n}` }),
    });
    if (!res.ok) return null;
    return ((await res.json()) as { result: { id: string } }).result.id;
  } catch {
    return null; // the server died before answering: not acknowledged
  }
}

async function accountIds(serve: ServeProcess): Promise<Set<string>> {
  const res = await fetch(`${serve.adminUrl}/admin/operations/sql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${serve.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'SELECT a.id FROM accounts a JOIN api_keys k ON k.account_id = a.id' }),
  });
  const { result } = (await res.json()) as { result: { rows: { id: string }[] } };
  return new Set(result.rows.map((r) => r.id));
}

describe('serve under SIGKILL', () => {
  it(`keeps every acknowledged write through ${kills} kills`, { timeout: 300_000 }, async () => {
    const dataDir = tempDataDir('crash');
    const env = cliEnv(dataDir);
    const acknowledged: string[] = [];
    let attempted = 0;
    let killed = 0;

    for (let round = 0; round < kills; round++) {
      const serve = await startServe(dataDir, env);
      let stop = false;
      const clients = Array.from({ length: clientsPerRound }, async () => {
        while (!stop) {
          const id = await createAccount(serve, attempted++);
          if (id) acknowledged.push(id);
        }
      });
      // Kill at a random moment, while writes are in flight.
      await sleep(100 + Math.random() * 400);
      serve.child.kill('SIGKILL');
      await serve.exited;
      killed++;
      stop = true;
      await Promise.all(clients);

      // Between kills, check what this round acknowledged survived the crash.
      if (round % 5 === 4 || round === kills - 1) {
        const check = await startServe(dataDir, env);
        const present = await accountIds(check);
        expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
        expect(await stopServe(check)).toBe(0);
      }
    }

    const final = await startServe(dataDir, env);
    const present = await accountIds(final);
    await stopServe(final);
    expect(killed).toBe(kills);
    expect(acknowledged.length).toBeGreaterThan(kills);
    expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
    console.log(`crash safety: ${killed} SIGKILLs of serve, ${attempted} writes attempted, ${acknowledged.length} acknowledged, all ${acknowledged.length} present after restart`);
  });
});
