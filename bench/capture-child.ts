// The load generator of `npm run bench -- capture` (bench/capture.ts), in its own process so that
// autocannon's CPU is not the server's event loop's: started once, then told over IPC to run each
// phase (`CaptureLoad`), at once, and answering with its figures (bench/load-child.ts).
//
//   node --import tsx bench/capture-child.ts     speaks bench/load-child.ts's protocol.
import autocannon from 'autocannon';
import { loadFigures, serveLoads, type LoadFigures } from './load-child.ts';

export interface CaptureTuple {
  token: string;
  network: 'evm' | 'solana';
  wallet: string;
}

export interface CaptureLoad {
  cmd: 'load';
  url: string;
  /** The merchant's API key. */
  apiKey: string;
  /** Taken in turn (request n takes tuple n * 7919 mod their number), so the wallets are mixed. */
  tuples: CaptureTuple[];
  connections: number;
  /** Seconds the phase runs, or `amount` requests. */
  seconds?: number;
  amount?: number;
  /** Each request's idempotency key is `${keyPrefix}-${n}`: fresh, so every capture appends a row. */
  keyPrefix: string;
}

async function load(c: CaptureLoad): Promise<LoadFigures> {
  let n = 0;
  const result = await autocannon({
    url: c.url,
    connections: c.connections,
    // autocannon checks whether the duration has passed at each sample: every 100 ms, not every second.
    sampleInt: 100,
    ...(c.amount !== undefined ? { amount: c.amount } : { duration: c.seconds ?? 1 }),
    requests: [
      {
        method: 'POST',
        path: '/v1/credentials/wallets',
        setupRequest: (req) => {
          const i = n++;
          const tuple = c.tuples[(i * 7919) % c.tuples.length]!;
          const body = JSON.stringify({ operator_token: tuple.token, wallet_address: tuple.wallet, network: tuple.network, idempotency_key: `${c.keyPrefix}-${i}` });
          return { ...req, headers: { 'x-api-key': c.apiKey, 'content-type': 'application/json' }, body };
        },
      },
    ],
  });
  return loadFigures(result);
}

serveLoads(load);
