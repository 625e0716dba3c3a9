// `npm run demo`: a devnet with x402 payments, ingested and scored into DATA_DIR, served on PORT
// with one demo account per plan, rescoring on the in-process schedule until interrupted.
import type { Config } from '../pipeline/config.ts';
import { loadConfig } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { startDevnet } from '../devnet/index.ts';
import { runThinScenario } from '../devnet/scenario.ts';
import { closeOnSignals, startServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { forgetChainFrom } from '../pipeline/ingest/forget-chain.ts';
import type { PlanName } from '../api/plans.ts';

const demoPlans: PlanName[] = ['free', 'starter', 'pro', 'enterprise'];

export async function runDemo(base: Config, log: Logger): Promise<void> {
  const devnet = await startDevnet({ port: base.devnetPort });
  const scenario = await runThinScenario(devnet);
  const config = loadConfig({ ...process.env, RPC_URL_DEVNET: devnet.rpcUrl }, base.configFile ?? undefined);
  const server = await startServer(config, log).catch(async (err: unknown) => {
    await devnet.close();
    throw err;
  });
  // Each demo starts a new chain: drop what an earlier demo ingested from its devnet.
  await server.store.write((tx) => forgetChainFrom(tx, 'devnet'));
  await (await server.jobs.run('ingest', {})).done;
  await (await server.jobs.run('score', {})).done;

  const lines = [`\nreputation demo: API on ${server.url}, devnet JSON-RPC on ${devnet.rpcUrl}`, ''];
  const keys: string[] = [];
  for (const plan of demoPlans) {
    const account = await createAccount(server.store, { plan, name: `demo ${plan}` }, server.keys);
    keys.push(account.api_key);
    lines.push(`demo account ${account.id}  plan ${plan.padEnd(10)}  X-API-Key: ${account.api_key}`);
  }
  const { heavyMerchant, lightMerchant } = scenario.roles;
  lines.push(
    '',
    'Try (first the free key, redacted; then a paid key, full record):',
    `  curl -s -H 'X-API-Key: ${keys[0]}' ${server.url}/v1/reputation/${heavyMerchant}`,
    `  curl -s -H 'X-API-Key: ${keys[2]}' ${server.url}/v1/reputation/${heavyMerchant}`,
    `  curl -s -H 'X-API-Key: ${keys[2]}' ${server.url}/v1/reputation/${lightMerchant}`,
    `  curl -s ${server.url}/health`,
    '',
    'Ctrl-C stops the demo.',
    '',
  );
  process.stdout.write(lines.join('\n'));
  await closeOnSignals(
    {
      close: async () => {
        await server.close();
        await devnet.close();
      },
    },
    log,
  );
}
