// A database owner for test/store.test.ts that dies by SIGKILL the moment its writes are
// acknowledged: it queues `count` account inserts at once (so they share a group commit), and
// kills itself as soon as every one has resolved, before anything else can reach the disk.
// Usage: write-and-kill.ts <dataDir> <count> <prefix>
import { openStore } from '../../pipeline/store/store.ts';

const [dataDir, count, prefix] = process.argv.slice(2);
const store = await openStore({ dataDir: dataDir! });
await Promise.all(
  Array.from({ length: Number(count) }, (_, i) =>
    store.write((tx) => tx.run(`INSERT INTO accounts (id, name, plan, status, created_at) VALUES ($1, NULL, 'free', 'active', utc_now())`, [`${prefix}_${i}`])),
  ),
);
process.kill(process.pid, 'SIGKILL');
