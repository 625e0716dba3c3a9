// `npm run demo`: a devnet with a simulated history (ERC-8004 agents with registration files,
// x402 payments, feedback with a sybil farm), ingested, enriched and scored into DATA_DIR, served
// on PORT with one demo account per plan, and kept fresh on the job schedule until interrupted.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Config } from '../pipeline/config.ts';
import { ConfigError, loadConfig } from '../pipeline/config.ts';
import type { Logger } from '../pipeline/log.ts';
import { closeOnSignals, startServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { forgetChainFrom } from '../pipeline/ingest/forget-chain.ts';
import { planNames } from '../api/plans.ts';
import type { JobName } from '../jobs/definitions.ts';
import type { SimulationTruth } from '../devnet/simulate-truth.ts';
import { startSimulatedDevnet } from './devnet.ts';
import { startDemoMerchant, type DemoMerchant } from '../examples/merchant/demo.ts';
import { DEFAULT_DAYS } from './devnet-options.ts';

/** DEMO_AGENTS or DEMO_PAYMENTS: a whole number of at least 1 (the examples need an agent and a payment). */
function demoSetting(name: 'DEMO_AGENTS' | 'DEMO_PAYMENTS', fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new ConfigError(`invalid setting ${name}: must be a whole number of at least 1, got "${raw}"`);
  return value;
}
// The real OFAC address lists and the full SDN list of 2024-05-03 (its names, for name screening)
// beside the project, when present (shared/data of this workspace); otherwise the 17-entry subset
// of the SDN list shipped in devnet/fixtures, for both, so screening works in a bare clone.
const sharedOfacLists = fileURLToPath(new URL('../../shared/data/ofac/address-lists-2024-09-27', import.meta.url));
const sharedSdnNames = fileURLToPath(new URL('../../shared/data/ofac/sdn-2024-05-03.csv', import.meta.url));
const shippedSdn = fileURLToPath(new URL('../devnet/fixtures/ofac-sdn-tiny/sdn.csv', import.meta.url));

/** The sanctions sources the demo loads, unless the environment names its own list (and so its names). */
function demoSanctionsSources(): Record<string, string> {
  if (process.env.SANCTIONS_LIST_SOURCE) return {};
  return {
    SANCTIONS_LIST_SOURCE: existsSync(sharedOfacLists) ? sharedOfacLists : shippedSdn,
    ...(process.env.SANCTIONS_NAMES_SOURCE ? {} : { SANCTIONS_NAMES_SOURCE: existsSync(sharedSdnNames) ? sharedSdnNames : shippedSdn }),
  };
}

export async function runDemo(base: Config, log: Logger): Promise<void> {
  const started = Date.now();
  // Hundreds of agents and thousands of payments, in about half a minute on a 2-core machine.
  const size = { agents: demoSetting('DEMO_AGENTS', 200), payments: demoSetting('DEMO_PAYMENTS', 2000) };
  const running = await startSimulatedDevnet(base, { ...size, seed: 'demo', days: DEFAULT_DAYS });
  const { devnet, simulation, caFile } = running;
  const config = loadConfig(
    {
      ...process.env,
      RPC_URL_DEVNET: devnet.rpcUrl,
      // The devnet's registration files are served on loopback with a self-signed certificate.
      METADATA_ALLOW_PRIVATE_ADDRESSES: 'true',
      METADATA_CA_FILE: caFile,
      ...demoSanctionsSources(),
    },
    base.configFile ?? undefined,
  );
  const server = await startServer(config, log).catch(async (err: unknown) => {
    await running.close();
    throw err;
  });
  // Each demo starts a new chain: drop what an earlier demo ingested from its devnet.
  await server.store.write((tx) => forgetChainFrom(tx, 'devnet'));
  const jobs: JobName[] = ['ingest', 'fetch-metadata', 'score', 'export', ...(config.sanctionsListSource ? (['refresh-sanctions-list'] as const) : [])];
  for (const job of jobs) await (await server.jobs.run(job, {})).done;

  const lines = [`\nreputation demo: API on ${server.url}, devnet JSON-RPC on ${devnet.rpcUrl} (ready in ${Math.round((Date.now() - started) / 1000)} s)`, ''];
  const keys = new Map<string, string>();
  const accounts = new Map<string, string>();
  for (const plan of planNames) {
    const account = await createAccount(server.store, { plan, name: `Demo merchant (${plan})` }, server.keys);
    keys.set(plan, account.api_key);
    accounts.set(plan, account.id);
    lines.push(`demo account ${account.id}  plan ${plan.padEnd(10)}  X-API-Key: ${account.api_key}`);
  }
  const [free, paid] = [keys.get('free'), keys.get('pro')];
  const session = (await server.identity.createAgentSession(accounts.get('pro')!, { context: 'demo', productName: 'Demo weather report' })) as {
    verify_url: string;
    poll_url: string;
    poll_secret: string;
  };
  // The example merchant (examples/merchant): x402 on the devnet behind the identity gate, on the
  // pro key (assess and sessions); MERCHANT_PORT, else 4021 (a free port when PORT is 0).
  const merchantPort = process.env.MERCHANT_PORT ? Number(process.env.MERCHANT_PORT) : config.port === 0 ? 0 : 4021;
  let merchant: DemoMerchant | null = null;
  let merchantLines: string[];
  try {
    merchant = await startDemoMerchant({ devnet, serviceUrl: server.url, apiKey: paid!, port: merchantPort, log: (line) => log.info('merchant', { event: line }) });
    merchantLines = merchant.lines;
  } catch (err) {
    merchantLines = [`example merchant not started (${(err as Error).message}); set MERCHANT_PORT to a free port`];
  }
  const { busiest, quietest, operator } = exampleAddresses(simulation.truth);
  const { totals } = simulation.truth;
  lines.push(
    '',
    `Simulated: ${totals.agents} ERC-8004 agents, ${totals.candidate} x402 payments (${totals.verified} verified), ${totals.feedback} feedback (${totals.sybilFeedback} from sybils).`,
    'Try (the free key gets the redacted record, a paid key the full one; the busiest agent, the merchant paid least, an operator of several agents):',
    `  curl -s -H 'X-API-Key: ${free}' ${server.url}/v1/reputation/${busiest}`,
    `  curl -s -H 'X-API-Key: ${paid}' ${server.url}/v1/reputation/${busiest}`,
    `  curl -s -H 'X-API-Key: ${paid}' ${server.url}/v1/reputation/${quietest}`,
    `  curl -s -H 'X-API-Key: ${paid}' '${server.url}/v1/reputation/${operator}?view=full&min_grade=D'`,
    `  curl -s ${server.url}/health`,
    `  npx reputation jobs list`,
    '',
    `Identity verification (the ${config.kycProvider} KYC provider): a session was created for the pro account; open its page, choose an outcome`,
    '(a listed name such as "Daniel Moreno" is flagged for review), then poll for the one-time operator token:',
    `  ${session.verify_url}`,
    `  curl -s -H 'X-Poll-Secret: ${session.poll_secret}' ${session.poll_url}`,
    `  curl -s -X POST -H 'X-API-Key: ${paid}' ${server.url}/v1/sessions    # another one`,
    '',
    ...merchantLines,
    '',
    'Ctrl-C stops the demo.',
    '',
  );
  process.stdout.write(lines.join('\n'));
  await closeOnSignals(
    {
      close: async () => {
        await merchant?.close();
        await server.close();
        await running.close();
      },
    },
    log,
  );
}

/**
 * The agent payment address paid most often, the plain merchant paid least (an address paid that
 * is neither an agent's payment address nor an owner of agents; any address paid, when there is
 * none), and the operator with the most agents.
 */
function exampleAddresses(truth: SimulationTruth): { busiest: string; quietest: string; operator: string } {
  const agentWallets = new Set<string>(truth.agents.map((a) => a.paymentWallet));
  const payees = Object.entries(truth.addresses).filter(([, f]) => f.candidate_as_payee > 0);
  payees.sort(([a, fa], [b, fb]) => fb.verified_as_payee - fa.verified_as_payee || a.localeCompare(b));
  const busiest = payees.find(([a]) => agentWallets.has(a)) ?? payees[0]!;
  const plain = payees.filter(([a]) => !agentWallets.has(a) && !(a in truth.operators));
  const [quietest] = (plain.length > 0 ? plain : payees).toSorted(([a, fa], [b, fb]) => fa.candidate_as_payee - fb.candidate_as_payee || a.localeCompare(b));
  const operators = Object.entries(truth.operators).sort(([a, x], [b, y]) => y.length - x.length || a.localeCompare(b));
  return { busiest: busiest[0], quietest: quietest![0], operator: operators[0]![0] };
}
