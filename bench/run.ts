// `npm run bench`: every benchmark, each against a baseline measured in the same run on the same
// machine, printed as one JSON line per benchmark. Results go into docs/performance.md by hand.
import { benchApi } from './api.ts';
import { benchAssess } from './assess.ts';
import { benchCapture } from './capture.ts';
import { benchGroupCommit } from './group-commit.ts';
import { benchImport } from './import.ts';
import { benchIngest } from './ingest.ts';
import { benchScore } from './score.ts';

const benches: Record<string, () => Promise<Record<string, number | boolean>>> = {
  api: () => benchApi(),
  assess: () => benchAssess(),
  capture: () => benchCapture(),
  'group-commit': benchGroupCommit,
  import: benchImport,
  ingest: benchIngest,
  score: benchScore,
};

const only = process.argv[2];
for (const [name, run] of Object.entries(benches)) {
  if (only && only !== name) continue;
  process.stdout.write(`${JSON.stringify({ bench: name, ...(await run()) })}\n`);
}
