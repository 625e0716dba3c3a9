// The synthetic data set of `npm run bench -- score`: made by DuckDB SQL (sql/bench/score_*.sql)
// into the real raw tables of chain `base`, as ingestion and the fetch-metadata job would have
// written them. Deterministic: the same sizes give the same rows on every run.
import { fileURLToPath } from 'node:url';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { refreshFacilitators } from '../pipeline/chain/facilitators.ts';
import { chainProfiles } from '../pipeline/chain/profiles.ts';

export interface ScoreDataSize {
  /** Transacting addresses (~96% of them pay at least once; the first 5% are the services paid). */
  addresses: number;
  /** x402 payments (USDC transfers with their EIP-3009 authorisation). */
  transfers: number;
  /** ERC-8004 agents; feedback is 10 per agent. */
  agents: number;
}

/** A bench setting from the environment: a positive whole number, `fallback` when unset. */
export function benchSetting(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number, got ${env[name]}`);
  return value;
}

/** The sizes, each overridable: BENCH_SCORE_ADDRESSES, BENCH_SCORE_TRANSFERS, BENCH_SCORE_AGENTS. */
export function scoreDataSize(env: NodeJS.ProcessEnv = process.env): ScoreDataSize {
  const size = (name: string, fallback: number) => benchSetting(env, name, fallback);
  return {
    addresses: size('BENCH_SCORE_ADDRESSES', 1_000_000),
    transfers: size('BENCH_SCORE_TRANSFERS', 10_000_000),
    agents: size('BENCH_SCORE_AGENTS', 20_000),
  };
}

const base = chainProfiles.base as {
  token: { address: string };
  identityRegistry: { address: string; startBlock: number };
  reputationRegistry: { address: string };
};

// Whole numbers and fixed hex addresses only, so plain SQL literals are safe.
function variables(size: ScoreDataSize): string {
  if (size.addresses % 7919 === 0) throw new Error('the address count must not be a multiple of 7919 (sql/bench/score_increment.sql)');
  return [
    `SET VARIABLE bench_addresses = ${size.addresses}`,
    `SET VARIABLE bench_transfers = ${size.transfers}`,
    `SET VARIABLE bench_agents = ${size.agents}`,
    `SET VARIABLE bench_token = '${base.token.address.toLowerCase()}'`,
    `SET VARIABLE bench_identity = '${base.identityRegistry.address.toLowerCase()}'`,
    `SET VARIABLE bench_identity_start = ${base.identityRegistry.startBlock}`,
    `SET VARIABLE bench_reputation = '${base.reputationRegistry.address.toLowerCase()}'`,
  ].join(';\n');
}

/** Writes the full data set into an empty store, in one transaction. */
export async function generateScoreData(store: Store, size: ScoreDataSize): Promise<void> {
  await store.write(async (tx) => {
    await refreshFacilitators(tx);
    await tx.run(variables(size));
    for (const file of ['score_macros', 'score_data', 'score_payments', 'score_erc8004']) await tx.run(sqlFile(`bench/${file}`));
  });
}

/**
 * Adds one hour of blocks above the token cursor whose payments touch `touchedAddresses` of the
 * addresses (a whole even number: two per payment; 1% unless told); or the payments `newPayments`
 * makes (SQL that creates bench_new_payments as score_increment.sql does).
 */
export async function applyScoreIncrement(
  store: Store,
  size: ScoreDataSize,
  { newPayments = sqlFile('bench/score_increment'), touchedAddresses = 2 * Math.max(1, Math.floor(size.addresses / 200)) }: { newPayments?: string; touchedAddresses?: number } = {},
): Promise<void> {
  if (!Number.isSafeInteger(touchedAddresses) || touchedAddresses < 2 || touchedAddresses % 2 !== 0 || touchedAddresses > size.addresses) {
    throw new Error(`an increment touches a whole even number of addresses, at most ${size.addresses}, not ${touchedAddresses}`);
  }
  await store.write(async (tx) => {
    await tx.run(variables(size));
    await tx.run(`SET VARIABLE bench_touched_addresses = ${touchedAddresses}`);
    await tx.run(sqlFile('bench/score_macros'));
    await tx.run(newPayments);
    await tx.run(sqlFile('bench/score_payments'));
    await tx.run('DROP TABLE bench_new_payments');
  });
}

// `node --import tsx bench/score-data.ts <dataDir>`: generates the data set (sizes from the
// environment) into a new store there, checkpoints, and prints how long each took as JSON.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const store = await openStore({ dataDir: process.argv[2]! });
  let started = performance.now();
  await generateScoreData(store, scoreDataSize());
  const generateMs = performance.now() - started;
  started = performance.now();
  await store.withReadConnection((conn) => conn.run('CHECKPOINT'));
  const checkpointMs = performance.now() - started;
  await store.close();
  process.stdout.write(`${JSON.stringify({ generate_ms: Math.round(generateMs), checkpoint_ms: Math.round(checkpointMs) })}\n`);
}
