// Crash safety of scoring runs: a process that keeps adding payments and scoring them is killed
// with SIGKILL at random moments. DuckDB must replay its WAL on the next open (it holds deletes
// and inserts of serving rows, their index updates and the payment deltas), every run that
// committed must be there, and what runs keep between them must still equal what it summarises.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore } from '../pipeline/store/store.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { generateScoreData, type ScoreDataSize } from '../bench/score-data.ts';
import { repoRoot } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';
import { expectPaymentsMatchView } from './helpers/scoring-invariants.ts';

const kills = 8;
const size: ScoreDataSize = { addresses: 2000, transfers: 20_000, agents: 50 };
const loop = path.join(repoRoot, 'test/helpers/score-loop.ts');

/** Starts the loop, kills it after a random time once it has run at least once; the runs it reported. */
async function runAndKill(dataDir: string, seed: number): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', loop, dataDir, String(size.addresses), String(size.transfers), String(size.agents)], { cwd: repoRoot });
  const runs: number[] = [];
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => runs.push(...[...d.toString().matchAll(/run (\d+)/g)].map((m) => Number(m[1]))));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  while (runs.length === 0) {
    if (child.exitCode !== null) throw new Error(`score loop exited early: ${stderr}`);
    await sleep(20);
  }
  // Somewhere in the next rounds: mid-run, mid-commit or between runs.
  await sleep(50 + ((seed * 7919) % 1500));
  child.kill('SIGKILL');
  await exited;
  return runs;
}

describe('scoring under SIGKILL', () => {
  it(`keeps every committed run and consistent payment aggregates through ${kills} kills`, { timeout: 300_000 }, async () => {
    const dataDir = tempDataDir('crash-scoring');
    const store = await openStore({ dataDir });
    await generateScoreData(store, size);
    await runScoring(store, { full: true });
    await store.close();

    for (let kill = 1; kill <= kills; kill++) {
      const reported = await runAndKill(dataDir, kill);
      const reopened = await openStore({ dataDir });
      try {
        const [newest] = await reopened.read('SELECT max(run_id)::INTEGER AS run, arg_max(address_count, run_id)::INTEGER AS addresses FROM scoring_runs');
        expect(newest!.run).toBeGreaterThanOrEqual(Math.max(...reported));
        const [served] = await reopened.read('SELECT count(*)::INTEGER AS n FROM address_scores');
        expect(served!.n).toBe(newest!.addresses);
        // Payments may have landed after the last committed run; the next run takes them in
        // from what that run kept, and must arrive where a rebuild would.
        await runScoring(reopened, {});
        await expectPaymentsMatchView(reopened);
      } finally {
        await reopened.close();
      }
    }
  });
});
