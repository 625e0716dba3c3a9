// Runs an admin operation wherever the database is: through the admin endpoint of the server
// that owns DATA_DIR, or, when none runs, by opening the database in this process.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { StoreLockedError } from '../pipeline/store/errors.ts';
import { readAdminEndpoint, type AdminEndpoint } from '../api/admin/files.ts';
import type { OperationName } from '../api/admin/operations.ts';
import { OperationInputError } from '../api/admin/operation-input-error.ts';
import { createRunLog, type JobProgress } from '../jobs/run-log.ts';

// A server that is starting holds the lock before its admin endpoint listens: wait that long.
const lockWaitMs = 10_000;
const pollMs = 100;

export async function runOperation(
  config: Config,
  log: Logger,
  name: OperationName,
  args: unknown,
  onProgress?: (progress: JobProgress) => void,
): Promise<unknown> {
  const deadline = Date.now() + lockWaitMs;
  for (;;) {
    const endpoint = readAdminEndpoint(config.dataDir);
    if (endpoint) {
      const reply = await callAdmin(endpoint, name, args);
      if (reply !== unreachable) return reply;
    } else {
      try {
        // Loaded only here: the store (DuckDB's native module) and the operations (ingestion and
        // viem), which a command going through the server's admin endpoint does not need.
        const { openStore } = await import('../pipeline/store/store.ts');
        const store = await openStore({ dataDir: config.dataDir, readConnections: 1 });
        try {
          const { runOperationIn } = await import('../api/admin/operations.ts');
          return await runOperationIn({ store, config, log, runs: createRunLog(store), onProgress }, name, args);
        } finally {
          await store.close();
        }
      } catch (err) {
        if (!(err instanceof StoreLockedError) || Date.now() > deadline) throw err;
      }
    }
    if (Date.now() > deadline) throw new Error(`the server on ${config.dataDir} does not answer on its admin endpoint`);
    await sleep(pollMs);
  }
}

const unreachable = Symbol('unreachable');

async function callAdmin(endpoint: AdminEndpoint, name: OperationName, args: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${endpoint.url}/admin/operations/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${endpoint.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args ?? {}),
    });
  } catch (err) {
    // Refused: the request never reached a server (stopping or restarting), so retrying is
    // safe. Any other failure may have happened after the server applied the operation.
    if ((err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') return unreachable;
    throw new Error(`the server closed the connection before answering; the ${name} operation may or may not have been applied`);
  }
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (response.ok) return body.result;
  if (response.status === 400 || response.status === 503) throw new OperationInputError(body.error?.message ?? 'bad request');
  throw new Error(`server error: ${body.error?.message ?? response.statusText}`);
}
