// A scoring owner for test/crash-safety-scoring.test.ts, killed with SIGKILL at random: each round
// adds an hour of payments (the bench data set's increment) and scores it, incrementally and every
// third round in full, so the WAL holds payment deltas, serving rows and their index updates.
// Prints `run N` once run N has committed. Usage: score-loop.ts <dataDir> <addresses> <transfers> <agents>
import { openStore } from '../../pipeline/store/store.ts';
import { runScoring } from '../../pipeline/score/run.ts';
import { applyScoreIncrement } from '../../bench/score-data.ts';

const [dataDir, addresses, transfers, agents] = process.argv.slice(2);
const size = { addresses: Number(addresses), transfers: Number(transfers), agents: Number(agents) };
const store = await openStore({ dataDir: dataDir! });
for (let round = 1; ; round++) {
  await applyScoreIncrement(store, size);
  const run = await runScoring(store, { full: round % 3 === 0 });
  process.stdout.write(`run ${run.runId}\n`);
}
