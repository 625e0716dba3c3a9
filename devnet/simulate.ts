// A realistic, deterministic history on the devnet: operators registering ERC-8004 agents (some
// one, some fleets), registration files in every form seen in the wild, verified payment wallets,
// URI updates and agent transfers; x402 payments to agents and merchants, through known
// facilitators and an unlisted submitter, and plain transfers; feedback from paying clients and
// from a sybil farm, revocations and responses. Spread over weeks to months of block time, and
// returned as a ground truth precise enough to compare ingestion with exactly.
import { writeFileSync } from 'node:fs';
import type { Devnet } from './index.ts';
import { loadCatalogFiles } from './registration-files.ts';
import { startRegistrationServer, type RegistrationServer } from './registration-server.ts';
import { planSimulation } from './simulate-plan.ts';
import { runPlan } from './simulate-run.ts';
import { groundTruth, type SimulationTruth } from './simulate-truth.ts';

export type { SimulationTruth } from './simulate-truth.ts';

export interface SimulateOptions {
  agents: number;
  /** x402 payments; plain transfers add another 5%. */
  payments: number;
  /** Same seed (and the same devnet genesis time), same history. */
  seed: string;
  /** Days of block time the activity spans, from the devnet's latest block; 90 unless given, at least 7. */
  days?: number;
  /**
   * `https://127.0.0.1:<port>` (or localhost) for the registration server to listen on; agentURIs
   * embed it. Unless given, a free port is chosen, and agentURIs differ from run to run.
   */
  registrationBaseUrl?: string;
  /** Also write the ground truth to this file, as JSON. */
  truthFile?: string;
}

export interface Simulation {
  truth: SimulationTruth;
  /** Keeps serving the registration files; close it when done. */
  registrationServer: RegistrationServer;
}

/** Three months: enough for active days and months to mean something. */
export const DEFAULT_SIMULATION_DAYS = 90;

export async function simulate(devnet: Devnet, options: SimulateOptions): Promise<Simulation> {
  const days = options.days ?? DEFAULT_SIMULATION_DAYS;
  for (const [name, value, min] of [['agents', options.agents, 0], ['payments', options.payments, 0], ['days', days, 7]] as const) {
    if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`simulate: ${name} must be a whole number of at least ${min}`);
  }
  const catalog = loadCatalogFiles();
  const plan = planSimulation({ agents: options.agents, payments: options.payments, seed: options.seed, days, catalogFiles: catalog.length });
  const registrationServer = await startRegistrationServer(listenAddress(options.registrationBaseUrl));
  try {
    const result = await runPlan(devnet, plan, catalog, registrationServer);
    const truth = groundTruth(devnet, plan, registrationServer.url, result);
    if (options.truthFile) writeFileSync(options.truthFile, `${JSON.stringify(truth, null, 2)}\n`);
    return { truth, registrationServer };
  } catch (err) {
    await registrationServer.close();
    throw err;
  }
}

function listenAddress(baseUrl: string | undefined): { host?: string; port?: number } {
  if (baseUrl === undefined) return {};
  const url = new URL(baseUrl);
  if (url.protocol !== 'https:' || !['127.0.0.1', 'localhost'].includes(url.hostname) || url.pathname !== '/' || !url.port) {
    throw new RangeError(`simulate: registrationBaseUrl must look like https://127.0.0.1:<port>, got ${baseUrl}`);
  }
  return { host: url.hostname, port: Number(url.port) };
}
