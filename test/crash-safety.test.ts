// Crash safety of the database owner: `reputation serve` is killed with SIGKILL while clients
// create accounts through its admin channel. A write the server acknowledged (a 200 carrying the
// new account) must be there after every restart; unacknowledged ones may or may not be.
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { cliEnv, startServe, stopServe, type ServeProcess } from './helpers/cli.ts';
import { openStore } from '../pipeline/store/store.ts';
import { tempDataDir } from './helpers/temp.ts';

const kills = 12;
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

/** Opens the database after a kill (replaying its WAL) and reads the accounts that have a key. */
async function accountIds(dataDir: string): Promise<Set<string>> {
  const store = await openStore({ dataDir });
  try {
    const rows = await store.read('SELECT a.id FROM accounts a JOIN api_keys k ON k.account_id = a.id');
    return new Set(rows.map((r) => String(r.id)));
  } finally {
    await store.close();
  }
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
        const present = await accountIds(dataDir);
        expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
      }
    }

    // A server starts on what the kills left, and stops cleanly.
    expect(await stopServe(await startServe(dataDir, env))).toBe(0);
    const present = await accountIds(dataDir);
    expect(killed).toBe(kills);
    expect(acknowledged.length).toBeGreaterThan(kills);
    expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
    console.log(`crash safety: ${killed} SIGKILLs of serve, ${attempted} writes attempted, ${acknowledged.length} acknowledged, all ${acknowledged.length} present after restart`);
  });
});
