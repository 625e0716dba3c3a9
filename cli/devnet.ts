// `reputation devnet`: the local chain on its own, with a simulated history of ERC-8004 agents,
// x402 payments and feedback, for ingesting from another terminal.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { explainPortInUse } from '../pipeline/port-in-use.ts';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { simulate, type Simulation } from '../devnet/simulate.ts';
import type { DevnetCommandOptions } from './devnet-options.ts';
import { closeOnSignals } from '../api/server.ts';

const DAY_MS = 86_400_000;

export interface SimulatedDevnet {
  devnet: Devnet;
  simulation: Simulation;
  /** The registration server's certificate, for fetchers to trust. */
  caFile: string;
  close(): Promise<void>;
}

/** Starts the devnet on DEVNET_PORT and plays a simulated history that ends two days ago. */
export async function startSimulatedDevnet(config: Config, opts: Omit<DevnetCommandOptions, 'payments'> & { payments: number }): Promise<SimulatedDevnet> {
  // Genesis at noon UTC, far enough back that the simulated history ends two days ago, as real
  // history would: recency and active-day facts then read naturally.
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const devnet = await startDevnet({ port: config.devnetPort, genesisTime: new Date(today - (opts.days + 2) * DAY_MS + DAY_MS / 2) }).catch((err: unknown) => {
    throw explainPortInUse(err, config.devnetPort, '127.0.0.1', 'stop the other devnet or demo, or set DEVNET_PORT');
  });
  const simulation = await simulate(devnet, { agents: opts.agents, payments: opts.payments, seed: opts.seed, days: opts.days, truthFile: opts.truth }).catch(
    async (err: unknown) => {
      await devnet.close();
      throw err;
    },
  );
  // Where a fetcher in another process can find the certificate to trust: named by the devnet's
  // port, which no other devnet can hold, so a second devnet on the same DATA_DIR (another
  // DEVNET_PORT) does not replace the certificate a running demo's fetcher trusts.
  mkdirSync(config.dataDir, { recursive: true });
  const caFile = path.join(config.dataDir, `devnet-${new URL(devnet.rpcUrl).port}-ca.pem`);
  writeFileSync(caFile, simulation.registrationServer.caPem);
  return {
    devnet,
    simulation,
    caFile,
    close: async () => {
      await simulation.registrationServer.close();
      await devnet.close();
    },
  };
}

export async function runDevnet(config: Config, log: Logger, opts: DevnetCommandOptions): Promise<void> {
  const running = await startSimulatedDevnet(config, { ...opts, payments: opts.payments === false ? 0 : opts.payments });
  const { devnet, caFile } = running;
  const { truth, registrationServer } = running.simulation;
  const { totals } = truth;
  log.info('simulated', { seed: opts.seed, agents: totals.agents, payments: totals.candidate, feedback: totals.feedback });

  process.stdout.write(
    [
      `devnet JSON-RPC ${devnet.rpcUrl} (chain id ${devnet.chainId})`,
      `token (USDC look-alike, EIP-3009) ${devnet.token.address}, deployed in block ${devnet.token.deployBlock}`,
      `identity registry (ERC-8004) ${devnet.identityRegistry.address}, deployed in block ${devnet.identityRegistry.deployBlock}`,
      `reputation registry (ERC-8004) ${devnet.reputationRegistry.address}, deployed in block ${devnet.reputationRegistry.deployBlock}`,
      `facilitators ${devnet.facilitators.join(', ')}`,
      `simulated (seed ${opts.seed}): ${totals.agents} agents, ${totals.candidate} x402 payments (${totals.verified} verified), ` +
        `${totals.plainTransfers} plain transfers, ${totals.feedback} feedback (${totals.sybilFeedback} from sybils), ` +
        `${truth.period.from} to ${truth.period.to}, blocks ${truth.blocks.first}-${truth.blocks.last}`,
      `registration server ${registrationServer.url}, self-signed: trust ${caFile} (e.g. NODE_EXTRA_CA_CERTS=${caFile})`,
      ...(opts.truth ? [`ground truth in ${opts.truth}`] : []),
      `ingest it with: RPC_URL_DEVNET=${devnet.rpcUrl} npx reputation ingest`,
      '',
    ].join('\n'),
  );
  await closeOnSignals(running, log);
}
