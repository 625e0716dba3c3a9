// `reputation devnet`: the local chain on its own, for ingesting from another terminal.
import type { Config } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { startDevnet } from '../devnet/index.ts';
import { runThinScenario } from '../devnet/scenario.ts';
import { closeOnSignals } from '../api/server.ts';

export async function runDevnet(config: Config, log: Logger, opts: { payments: boolean }): Promise<void> {
  const devnet = await startDevnet({ port: config.devnetPort });
  if (opts.payments) {
    const scenario = await runThinScenario(devnet);
    log.info('made x402 payments', { payments: scenario.payments.length, plainTransfers: scenario.plainTransfers.length });
  }
  process.stdout.write(
    [
      `devnet JSON-RPC ${devnet.rpcUrl} (chain id ${devnet.chainId})`,
      `token (USDC look-alike, EIP-3009) ${devnet.token.address}, deployed in block ${devnet.token.deployBlock}`,
      `facilitators ${devnet.facilitators.join(', ')}`,
      `ingest it with: RPC_URL_DEVNET=${devnet.rpcUrl} npx reputation ingest`,
      '',
    ].join('\n'),
  );
  await closeOnSignals(devnet, log);
}
