// One place reads the environment and the optional config file, validates them with zod, and
// hands a typed, frozen Config to everything else. A bad value stops start-up with a line that
// names the setting, never a stack trace.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { chainProfiles } from './chain/profiles.ts';

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address').transform((a) => a.toLowerCase());
const portNumber = z.coerce.number().int().min(0).max(65535);
const blockNumber = z.coerce.number().int().min(0);
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

const contract = z.object({ address, startBlock: blockNumber });

const chainSchema = z.object({
  chainId: z.coerce.number().int().positive(),
  rpcUrl: httpUrl.optional(),
  confirmations: z.coerce.number().int().min(0).default(0),
  // Provider limits: getLogs ranges start at (and never exceed) maxBlockRange and shrink when
  // the provider refuses; requests in flight and per-request timeout.
  maxBlockRange: z.coerce.number().int().min(1).default(2000),
  rpcConcurrency: z.coerce.number().int().min(1).max(256).default(8),
  rpcTimeoutMs: z.coerce.number().int().min(100).default(15_000),
  token: contract,
  // ERC-8004 registries; a chain without them has payments only.
  identityRegistry: contract.optional(),
  reputationRegistry: contract.optional(),
  // x402's Permit2 proxy (x402ExactPermit2Proxy), whose settlements are x402 payments for tokens
  // without EIP-3009; a chain without it has EIP-3009 payments only.
  permit2Proxy: contract.optional(),
  // Network key of facilitators.csv whose signers count as verified on this chain.
  facilitatorNetwork: z.string().min(1),
});

/** The default of STALE_AFTER_SECONDS (staleAfterSeconds below). */
export const defaultStaleAfterSeconds = 24 * 60 * 60;

const configSchema = z.object({
  port: portNumber.default(8080),
  host: z.string().min(1).default('127.0.0.1'),
  devnetPort: portNumber.default(8545),
  dataDir: z.string().min(1).default('./data'),
  redisUrl: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  // Namespace of our BullMQ keys in Redis, so several deployments (or tests) can share one Redis.
  queuePrefix: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only').default('reputation'),
  publicBaseUrl: httpUrl.optional(),
  signupUrl: httpUrl.optional(),
  readConnections: z.coerce.number().int().min(1).max(64).default(4),
  // The client's address behind reverse proxies (api/security/client-address.ts): 0 = the TCP peer,
  // the proxy header ignored (a client could write it).
  trustProxyHops: z.coerce.number().int().min(0).max(10).default(0),
  proxyIpHeader: z.string().regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name').default('X-Forwarded-For'),
  // Per client address on the routes without a key (api/usage/ip-rate-limit.ts).
  ipRatePerMinute: z.coerce.number().int().min(1).max(1_000_000).default(60),
  ipRatePerSecond: z.coerce.number().int().min(1).max(100_000).default(5),
  // Served reputation records kept in memory by the API (api/reputation/cache.ts); 0 turns it off.
  recordCacheSize: z.coerce.number().int().min(0).default(100_000),
  // How old the newest scoring run may be before records are `stale` and the view variant answers
  // 503 stale_data (spec 3.3: 24 h); /health reports degraded past it too.
  staleAfterSeconds: z.coerce.number().int().min(1).max(366 * 24 * 60 * 60).default(defaultStaleAfterSeconds),
  ingestIntervalSeconds: z.coerce.number().int().min(1).default(15),
  scoreIntervalSeconds: z.coerce.number().int().min(1).default(60),
  // A full scoring run on its own schedule (0: none): it writes the serving tables in address
  // order again, which incremental runs' appended rows wear down (docs/scoring.md, "Runs").
  scoreFullIntervalSeconds: z.coerce.number().int().min(0).default(24 * 60 * 60),
  // Where refresh-sanctions-list reads the OFAC list: a local file or folder, or an https URL
  // (see pipeline/sanctions/source-setting.ts). Unset: no sanctions refresh is scheduled.
  sanctionsListSource: z.string().min(1).optional(),
  // Registration files and evidence (fetch-metadata job).
  metadataIpfsGateway: httpUrl.default('https://ipfs.io/ipfs/'),
  // Private and loopback hosts are refused unless allowed: only for a local devnet.
  metadataAllowPrivateAddresses: z.union([z.boolean(), z.stringbool()], { error: 'must be true or false (or 1/0, yes/no, on/off)' }).default(false),
  // An extra CA (PEM file) trusted for https registration files, e.g. the devnet's.
  metadataCaFile: z.string().min(1).optional(),
  // Where the SDN names screened at verification come from when SANCTIONS_LIST_SOURCE has none
  // (a folder of address lists): an sdn.csv (alt.csv beside it is read too) or sdn_advanced.xml.
  sanctionsNamesSource: z.string().min(1).optional(),
  // Identity (identity/): how long a clear name screening counts as clear (spec 8: 90 days).
  sanctionsFreshnessDays: z.coerce.number().int().min(1).max(3650).default(90),
  // How long the address list stays usable for assess's signer check without a successful refresh
  // (the job runs hourly); older, the check is `unavailable` and assess denies (fail closed).
  sanctionsListMaxAgeHours: z.coerce.number().int().min(1).max(24 * 365).default(48),
  // The KYC vendor behind the verify page: the sandbox (outcomes chosen on the page) or Stripe Identity.
  kycProvider: z.enum(['sandbox', 'stripe'], { error: 'must be sandbox or stripe' }).default('sandbox'),
  // A restricted key: only those may read a verification's sensitive outputs (the date of birth).
  stripeSecretKey: z
    .string()
    .regex(/^rk_(test|live)_[A-Za-z0-9]+$/, 'must be a Stripe restricted key (rk_…) with read access to Identity verification sessions and their sensitive results')
    .optional(),
  stripeWebhookSecret: z.string().regex(/^whsec_[A-Za-z0-9]+$/, 'must be a Stripe webhook signing secret (whsec_…)').optional(),
  // Another address for Stripe's API (a local server speaking its protocol, in tests); unset: api.stripe.com.
  stripeApiBase: httpUrl.optional(),
  // Where flagged operators are told to write (next_steps contact_support); unset: support@ + PUBLIC_BASE_URL's host.
  supportEmail: z.email({ error: 'must be an email address' }).optional(),
  // Days the assess decision audit trail (`assessments`) keeps a row; the prune-assessments job deletes older ones.
  assessmentRetentionDays: z.coerce.number().int().min(1).max(3650).default(365),
  // Days an agent session nobody completed (pending or failed) is kept past its expiry; the prune-sessions job deletes older ones.
  sessionRetentionDays: z.coerce.number().int().min(1).max(3650).default(30),
  // Days an expired operator token, refresh family or wallet challenge is kept; the prune-credentials job deletes older ones.
  credentialRetentionDays: z.coerce.number().int().min(1).max(3650).default(90),
  chains: z.record(z.string().regex(/^[a-z0-9-]+$/, 'chain names are lowercase letters, digits and -'), chainSchema).default({}),
});

export type ChainConfig = z.infer<typeof chainSchema> & { name: string };
export type Config = Omit<z.infer<typeof configSchema>, 'chains'> & {
  chains: Record<string, ChainConfig>;
  configFile: string | null;
};

/** The environment variable that enables a chain: devnet → RPC_URL_DEVNET, base-sepolia → RPC_URL_BASE_SEPOLIA. */
export function rpcUrlSetting(chain: string): string {
  return `RPC_URL_${chain.toUpperCase().replaceAll('-', '_')}`;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

// Environment names of the top-level settings; RPC_URL_<CHAIN> is handled separately.
const envNames = {
  port: 'PORT',
  host: 'HOST',
  devnetPort: 'DEVNET_PORT',
  dataDir: 'DATA_DIR',
  redisUrl: 'REDIS_URL',
  queuePrefix: 'QUEUE_PREFIX',
  publicBaseUrl: 'PUBLIC_BASE_URL',
  signupUrl: 'SIGNUP_URL',
  readConnections: 'DB_READ_CONNECTIONS',
  trustProxyHops: 'TRUST_PROXY_HOPS',
  proxyIpHeader: 'PROXY_IP_HEADER',
  ipRatePerMinute: 'IP_RATE_PER_MINUTE',
  ipRatePerSecond: 'IP_RATE_PER_SECOND',
  recordCacheSize: 'RECORD_CACHE_SIZE',
  staleAfterSeconds: 'STALE_AFTER_SECONDS',
  ingestIntervalSeconds: 'INGEST_INTERVAL_SECONDS',
  scoreIntervalSeconds: 'SCORE_INTERVAL_SECONDS',
  scoreFullIntervalSeconds: 'SCORE_FULL_INTERVAL_SECONDS',
  sanctionsListSource: 'SANCTIONS_LIST_SOURCE',
  metadataIpfsGateway: 'METADATA_IPFS_GATEWAY',
  metadataAllowPrivateAddresses: 'METADATA_ALLOW_PRIVATE_ADDRESSES',
  metadataCaFile: 'METADATA_CA_FILE',
  sanctionsNamesSource: 'SANCTIONS_NAMES_SOURCE',
  sanctionsFreshnessDays: 'SANCTIONS_FRESHNESS_DAYS',
  sanctionsListMaxAgeHours: 'SANCTIONS_LIST_MAX_AGE_HOURS',
  kycProvider: 'KYC_PROVIDER',
  stripeSecretKey: 'STRIPE_SECRET_KEY',
  stripeWebhookSecret: 'STRIPE_WEBHOOK_SECRET',
  stripeApiBase: 'STRIPE_API_BASE',
  supportEmail: 'SUPPORT_EMAIL',
  assessmentRetentionDays: 'ASSESSMENT_RETENTION_DAYS',
  sessionRetentionDays: 'SESSION_RETENTION_DAYS',
  credentialRetentionDays: 'CREDENTIAL_RETENTION_DAYS',
} as const;

type Env = Record<string, string | undefined>;

/** Loads config from a JSON file (REPUTATION_CONFIG or `configFile`), then the environment on top. */
export function loadConfig(env: Env = process.env, configFile = env.REPUTATION_CONFIG): Config {
  const fromFile = configFile ? readConfigFile(configFile) : {};
  const unknown = Object.keys(fromFile).filter((key) => key !== 'chains' && !(key in envNames));
  if (unknown.length > 0) {
    throw new ConfigError(`config file ${configFile}: unknown setting ${unknown[0]} (known: ${[...Object.keys(envNames), 'chains'].join(', ')})`);
  }
  const merged: Record<string, unknown> = { ...fromFile };
  const fromEnv = new Set<string>();
  for (const [key, name] of Object.entries(envNames)) {
    const value = env[name];
    if (value !== undefined && value !== '') {
      merged[key] = value;
      fromEnv.add(key);
    }
  }
  merged.chains = mergeChains(fromFile.chains, env);

  const parsed = configSchema.safeParse(merged, { error: expectedValue });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // A bad key of a record (a chain name) carries the key schema's own message inside.
    const message = issue.code === 'invalid_key' ? issue.issues[0]?.message ?? issue.message : issue.message;
    throw new ConfigError(`invalid setting ${givenName(issue.path, fromFile, fromEnv, configFile)}: ${message}`);
  }
  const c = parsed.data;
  if (c.kycProvider === 'stripe') {
    const missing = (['stripeSecretKey', 'stripeWebhookSecret'] as const).filter((key) => c[key] === undefined);
    if (missing.length > 0) throw new ConfigError(`KYC_PROVIDER stripe needs ${missing.map((key) => envNames[key]).join(' and ')}`);
  }
  const chains = Object.fromEntries(Object.entries(c.chains).map(([name, chain]) => [name, { ...chain, name }]));
  return Object.freeze({
    ...c,
    dataDir: path.resolve(c.dataDir),
    publicBaseUrl: c.publicBaseUrl?.replace(/\/$/, ''),
    chains,
    configFile: configFile ?? null,
  });
}

/**
 * Where 401 signup_required points: SIGNUP_URL, else $PUBLIC_BASE_URL/signup. Unset,
 * PUBLIC_BASE_URL is the API on loopback at the port it listens on, known only once it listens:
 * with PORT=0 the port the system picked, not 0.
 */
export function signupUrlOf(config: Pick<Config, 'publicBaseUrl' | 'signupUrl'>, listeningPort: number): string {
  return config.signupUrl ?? `${publicBaseUrlOf(config, listeningPort)}/signup`;
}

/** PUBLIC_BASE_URL, else the API on loopback at the port it listens on (see signupUrlOf). */
export function publicBaseUrlOf(config: Pick<Config, 'publicBaseUrl'>, listeningPort: number): string {
  return config.publicBaseUrl ?? `http://127.0.0.1:${listeningPort}`;
}

// What a bad number says instead of zod's defaults ("expected number, received NaN"); settings
// with messages of their own keep them.
function expectedValue(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === 'invalid_type' && (issue.expected === 'number' || issue.expected === 'int')) return 'must be a whole number';
  if (issue.code === 'too_small' && issue.origin === 'number') return `must be at least ${issue.minimum}`;
  if (issue.code === 'too_big' && issue.origin === 'number') return `must be at most ${issue.maximum}`;
  return undefined;
}

function readConfigFile(file: string): Record<string, unknown> & { chains?: Record<string, unknown> } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('top level must be an object');
    return value as Record<string, unknown>;
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

// A chain is enabled by giving it an RPC URL. Shipped profiles (base, devnet) supply the rest;
// the config file may override any field or describe a chain that has no profile.
function mergeChains(fileChains: Record<string, unknown> | undefined, env: Env): Record<string, unknown> {
  const chains: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(fileChains ?? {})) {
    chains[name] = { ...chainProfiles[name], ...(value as Record<string, unknown>) };
  }
  for (const [key, value] of Object.entries(env)) {
    const match = /^RPC_URL_([A-Z0-9_]+)$/.exec(key);
    if (!match || !value) continue;
    const name = match[1]!.toLowerCase().replaceAll('_', '-');
    if (!chainProfiles[name] && !chains[name]) {
      throw new ConfigError(
        `${key} names chain ${name}, which has no shipped profile (${Object.keys(chainProfiles).join(', ')}): ` +
          `describe it under chains.${name} in the config file (chainId, token, facilitatorNetwork)`,
      );
    }
    chains[name] = { ...chainProfiles[name], ...chains[name], rpcUrl: value };
  }
  return chains;
}

/**
 * A setting named as it was given: its environment variable, or its key and the file. Chains mix
 * both: an RPC URL is its variable, any other chain field (and a chain's name) a key of the file.
 */
function givenName(issuePath: readonly PropertyKey[], fromFile: object, fromEnv: Set<string>, configFile: string | undefined): string {
  const head = String(issuePath[0]);
  const inFile = head === 'chains' ? issuePath[2] !== 'rpcUrl' : head in fromFile && !fromEnv.has(head);
  if (!inFile || !configFile) return settingName(issuePath);
  return `${head === 'chains' ? settingName(issuePath) : head} (config file ${configFile})`;
}

function settingName(issuePath: readonly PropertyKey[]): string {
  const [head, chain, ...rest] = issuePath.map(String);
  if (head === 'chains' && chain) {
    if (rest[0] === 'rpcUrl') return rpcUrlSetting(chain);
    return `chains.${[chain, ...rest].join('.')}`;
  }
  const env = envNames[head as keyof typeof envNames];
  return env ?? (issuePath.join('.') || 'config');
}
