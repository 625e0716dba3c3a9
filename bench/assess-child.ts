// The load generator of `npm run bench -- assess` (bench/assess.ts), in its own process so that
// autocannon's CPU is not the server's event loop's: started once, then told over IPC to run each
// phase (`AssessLoad`), at once, and answering with its figures (bench/load-child.ts).
//
// Every phase, the bare Koa baseline included, sends the same kind of request built the same way:
// POST `path` with a JSON body taken from `bodies` and an X-API-Key taken from `keys`, in turn, so
// the client's own cost is the same whatever answers.
//
//   node --import tsx bench/assess-child.ts     speaks bench/load-child.ts's protocol.
import autocannon from 'autocannon';
import { loadFigures, serveLoads, type LoadFigures } from './load-child.ts';

export interface AssessLoad {
  cmd: 'load';
  /** The server's base URL (the real API, or the bare Koa app). */
  url: string;
  path: string;
  /** JSON request bodies; request n takes body n * 7919 mod their number, so the wallets are mixed. */
  bodies: string[];
  /** API keys; request n takes key n mod their number (none reaches its rate limit). */
  keys: string[];
  connections: number;
  /** Seconds the phase runs, or `amount` requests. */
  seconds?: number;
  amount?: number;
}

async function load(c: AssessLoad): Promise<LoadFigures> {
  let n = 0;
  const result = await autocannon({
    url: c.url,
    connections: c.connections,
    // autocannon checks whether the duration has passed at each sample: every 100 ms, not every second.
    sampleInt: 100,
    // An answer may wait seconds for a read pool its own index checks keep busy: counted, not cut off.
    timeout: 60,
    ...(c.amount !== undefined ? { amount: c.amount } : { duration: c.seconds ?? 1 }),
    requests: [
      {
        method: 'POST',
        path: c.path,
        setupRequest: (req) => {
          const i = n++;
          return { ...req, headers: { 'x-api-key': c.keys[i % c.keys.length]!, 'content-type': 'application/json' }, body: c.bodies[(i * 7919) % c.bodies.length]! };
        },
      },
    ],
  });
  return loadFigures(result);
}

serveLoads(load);
