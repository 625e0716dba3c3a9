// Configuration: defaults, environment over file, shipped chain profiles, and errors that name
// the setting.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, signupUrlOf } from '../pipeline/config.ts';
import { defaultSchedules } from '../jobs/definitions.ts';
import { tempDataDir } from './helpers/temp.ts';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', devnetPort: 8545, chains: {} });
    expect(signupUrlOf(config, 8080)).toBe('http://127.0.0.1:8080/signup');
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(config.redisUrl).toBeUndefined();
    expect(config.staleAfterSeconds).toBe(86_400);
    expect(loadConfig({ STALE_AFTER_SECONDS: '3600' }).staleAfterSeconds).toBe(3_600);
  });

  it('schedules a full scoring run once a day unless SCORE_FULL_INTERVAL_SECONDS says otherwise (0: never)', () => {
    const full = (env: Record<string, string>) => defaultSchedules(loadConfig(env)).find((s) => s.scheduleId === 'score-full');
    expect(full({})).toEqual({ scheduleId: 'score-full', jobName: 'score', jobData: { full: true }, everySeconds: 86_400 });
    expect(full({ SCORE_FULL_INTERVAL_SECONDS: '604800' })?.everySeconds).toBe(604_800);
    expect(full({ SCORE_FULL_INTERVAL_SECONDS: '0' })).toBeUndefined();
    expect(() => loadConfig({ SCORE_FULL_INTERVAL_SECONDS: '-1' })).toThrow(/^invalid setting SCORE_FULL_INTERVAL_SECONDS: /);
  });

  it('identity settings: the sandbox by default, Stripe only with a restricted key and a webhook secret', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ kycProvider: 'sandbox', sanctionsFreshnessDays: 90 });
    expect(config.supportEmail).toBeUndefined();
    expect(() => loadConfig({ KYC_PROVIDER: 'stripe' })).toThrow('KYC_PROVIDER stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET');
    expect(() => loadConfig({ KYC_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'rk_test_abc' })).toThrow('KYC_PROVIDER stripe needs STRIPE_WEBHOOK_SECRET');
    expect(() => loadConfig({ KYC_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' })).toThrow(
      /^invalid setting STRIPE_SECRET_KEY: must be a Stripe restricted key \(rk_…\)/,
    );
    expect(() => loadConfig({ STRIPE_WEBHOOK_SECRET: 'secret' })).toThrow(/^invalid setting STRIPE_WEBHOOK_SECRET: /);
    expect(() => loadConfig({ KYC_PROVIDER: 'onfido' })).toThrow('invalid setting KYC_PROVIDER: must be sandbox or stripe');
    expect(loadConfig({ KYC_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'rk_live_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc' }).kycProvider).toBe('stripe');
    expect(() => loadConfig({ SANCTIONS_FRESHNESS_DAYS: '0' })).toThrow('invalid setting SANCTIONS_FRESHNESS_DAYS: must be at least 1');
    expect(() => loadConfig({ SUPPORT_EMAIL: 'nobody' })).toThrow('invalid setting SUPPORT_EMAIL: must be an email address');
  });

  it('enables a chain by its RPC URL and fills the rest from the shipped profile', () => {
    const { chains } = loadConfig({ RPC_URL_BASE: 'https://base.example/rpc' });
    expect(chains.base).toMatchObject({
      name: 'base',
      chainId: 8453,
      rpcUrl: 'https://base.example/rpc',
      token: { address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', startBlock: 23283726 },
      facilitatorNetwork: 'base',
    });
  });

  it('reads a config file, and the environment wins over it', () => {
    const file = path.join(tempDataDir('config'), 'config.json');
    writeFileSync(file, JSON.stringify({ port: 9000, dataDir: '/srv/rep', chains: { base: { confirmations: 12 } } }));
    const config = loadConfig({ PORT: '9100', RPC_URL_BASE: 'http://127.0.0.1:1/' }, file);
    expect(config).toMatchObject({ port: 9100, dataDir: '/srv/rep', configFile: file });
    expect(config.chains.base?.confirmations).toBe(12);
  });

  it.each([
    [{ PORT: 'eighty' }, /^invalid setting PORT: must be a whole number$/],
    [{ PORT: '70000' }, /^invalid setting PORT: must be at most 65535$/],
    [{ PORT: '80.5' }, /^invalid setting PORT: must be a whole number$/],
    [{ REDIS_URL: 'localhost:6379' }, /^invalid setting REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL$/],
    [{ RPC_URL_BASE: 'ftp://x' }, /^invalid setting RPC_URL_BASE: must be an http:\/\/ or https:\/\/ URL$/],
    [{ RPC_URL_MYCHAIN: 'http://127.0.0.1:8545' }, /^RPC_URL_MYCHAIN names chain mychain, which has no shipped profile \(base, devnet\)/],
    [{ DB_READ_CONNECTIONS: '0' }, /^invalid setting DB_READ_CONNECTIONS: must be at least 1$/],
    [{ STALE_AFTER_SECONDS: '0' }, /^invalid setting STALE_AFTER_SECONDS: must be at least 1$/],
    // Past an upper bound, or not of the form the setting takes.
    [{ DB_READ_CONNECTIONS: '65' }, /^invalid setting DB_READ_CONNECTIONS: must be at most 64$/],
    [{ TRUST_PROXY_HOPS: '11' }, /^invalid setting TRUST_PROXY_HOPS: must be at most 10$/],
    [{ PROXY_IP_HEADER: 'X Forwarded For' }, /^invalid setting PROXY_IP_HEADER: must be an HTTP header name$/],
    [{ QUEUE_PREFIX: 'rep:prod' }, /^invalid setting QUEUE_PREFIX: letters, digits, _ and - only$/],
    [{ STALE_AFTER_SECONDS: String(366 * 86_400 + 1) }, /^invalid setting STALE_AFTER_SECONDS: /],
    [{ METADATA_ALLOW_PRIVATE_ADDRESSES: 'maybe' }, /^invalid setting METADATA_ALLOW_PRIVATE_ADDRESSES: must be true or false \(or 1\/0, yes\/no, on\/off\)$/],
    [{ RPC_URL_BASE: 'wss://base.example/rpc' }, /^invalid setting RPC_URL_BASE: must be an http:\/\/ or https:\/\/ URL$/],
  ])('%j is refused with a message naming the setting', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('names a bad value by its key in the config file, and refuses an unknown key', () => {
    const file = path.join(tempDataDir('config-bad'), 'config.json');
    writeFileSync(file, JSON.stringify({ port: 'abc' }));
    expect(() => loadConfig({}, file)).toThrow(new ConfigError(`invalid setting port (config file ${file}): must be a whole number`));
    // The environment's value wins, and is named as such.
    expect(() => loadConfig({ PORT: 'eighty' }, file)).toThrow(/^invalid setting PORT: /);
    writeFileSync(file, JSON.stringify({ port: 9000, nosuch: 1 }));
    expect(() => loadConfig({}, file)).toThrow(/^config file .*: unknown setting nosuch \(known: port, host, /);
  });

  it('names a missing or broken config file', () => {
    expect(() => loadConfig({}, '/nonexistent/config.json')).toThrow(/^cannot read config file \/nonexistent\/config\.json: ENOENT/);
    const file = path.join(tempDataDir('config-bad'), 'bad.json');
    writeFileSync(file, '{ nope');
    expect(() => loadConfig({}, file)).toThrow(/is not valid JSON/);
  });
});

describe('loadConfig: values, bounds and chain settings', () => {
  // An empty variable counts as unset (a shell's `PORT=`), so the default or the file's value applies.
  it('treats an empty environment variable as unset', () => {
    expect(loadConfig({ PORT: '', HOST: '', RECORD_CACHE_SIZE: '' })).toMatchObject({ port: 8080, host: '127.0.0.1', recordCacheSize: 100_000 });
  });

  // PUBLIC_BASE_URL loses a trailing slash, and SIGNUP_URL defaults to $PUBLIC_BASE_URL/signup (README, Configuration);
  // unset, PUBLIC_BASE_URL is the API on loopback at the port it listens on.
  it('derives the public base URL without a trailing slash and the signup URL from it', () => {
    const given = loadConfig({ PUBLIC_BASE_URL: 'https://rep.example/' });
    expect(given.publicBaseUrl).toBe('https://rep.example');
    expect(signupUrlOf(given, 9001)).toBe('https://rep.example/signup');
    expect(signupUrlOf(loadConfig({ PORT: '9001' }), 9001)).toBe('http://127.0.0.1:9001/signup');
    expect(signupUrlOf(loadConfig({ SIGNUP_URL: 'https://join.example/x' }), 9001)).toBe('https://join.example/x');
  });

  // Per-chain defaults documented in README: maxBlockRange 2000, rpcConcurrency 8, rpcTimeoutMs 15000; base needs 5 confirmations.
  it('fills the documented per-chain defaults', () => {
    const { chains } = loadConfig({ RPC_URL_BASE: 'https://base.example/rpc', RPC_URL_DEVNET: 'http://127.0.0.1:8545' });
    expect(chains.base).toMatchObject({ maxBlockRange: 2000, rpcConcurrency: 8, rpcTimeoutMs: 15_000, confirmations: 5 });
    expect(chains.devnet).toMatchObject({ maxBlockRange: 2000, rpcConcurrency: 8, rpcTimeoutMs: 15_000, confirmations: 0, chainId: 1337 });
  });


  // The bounds themselves are allowed: RECORD_CACHE_SIZE 0 turns the cache off, 64 read connections, 10 proxy hops.
  it('accepts values on the bounds', () => {
    expect(loadConfig({ RECORD_CACHE_SIZE: '0', DB_READ_CONNECTIONS: '64', TRUST_PROXY_HOPS: '10', STALE_AFTER_SECONDS: String(366 * 86_400) })).toMatchObject({
      recordCacheSize: 0,
      readConnections: 64,
      trustProxyHops: 10,
      staleAfterSeconds: 366 * 86_400,
    });
  });

  // The boolean setting reads "false" as false (not as a non-empty, truthy string); the file may give a JSON boolean.
  it('reads METADATA_ALLOW_PRIVATE_ADDRESSES as a boolean word', () => {
    expect(loadConfig({}).metadataAllowPrivateAddresses).toBe(false);
    expect(loadConfig({ METADATA_ALLOW_PRIVATE_ADDRESSES: 'false' }).metadataAllowPrivateAddresses).toBe(false);
    expect(loadConfig({ METADATA_ALLOW_PRIVATE_ADDRESSES: 'true' }).metadataAllowPrivateAddresses).toBe(true);
    const file = path.join(tempDataDir('config-bool'), 'config.json');
    writeFileSync(file, JSON.stringify({ metadataAllowPrivateAddresses: true }));
    expect(loadConfig({}, file).metadataAllowPrivateAddresses).toBe(true);
  });

  // A chain without a profile, described in the file, is enabled by RPC_URL_<NAME> with - written as _; addresses are lowercased.
  it('enables a file-described chain by RPC_URL_<NAME> and lowercases its addresses', () => {
    const file = path.join(tempDataDir('config-chain'), 'config.json');
    const token = '0xABCDEF0123456789ABCDEF0123456789ABCDEF01';
    writeFileSync(file, JSON.stringify({ chains: { 'my-chain': { chainId: 10, token: { address: token, startBlock: 5 }, facilitatorNetwork: 'base' } } }));
    const { chains } = loadConfig({ RPC_URL_MY_CHAIN: 'https://my.example/rpc' }, file);
    expect(chains['my-chain']).toMatchObject({ name: 'my-chain', chainId: 10, rpcUrl: 'https://my.example/rpc', token: { address: token.toLowerCase(), startBlock: 5 } });
  });

  // A shipped chain given in the file (with its rpcUrl there, no RPC_URL_ variable) still takes the profile's other fields.
  it('merges a file chain with its shipped profile', () => {
    const file = path.join(tempDataDir('config-profile'), 'config.json');
    writeFileSync(file, JSON.stringify({ chains: { base: { rpcUrl: 'https://base.example/rpc', maxBlockRange: 500 } } }));
    expect(loadConfig({}, file).chains.base).toMatchObject({ chainId: 8453, confirmations: 5, maxBlockRange: 500, rpcUrl: 'https://base.example/rpc', facilitatorNetwork: 'base' });
  });

  it('schedules ingest only for a chain with an RPC URL; registration files for every chain', () => {
    const dir = tempDataDir('config-chain-schedules');
    const file = path.join(dir, 'config.json');
    const mychain = { chainId: 1, token: { address: `0x${'12'.repeat(20)}`, startBlock: 0 }, facilitatorNetwork: 'base' };
    writeFileSync(file, JSON.stringify({ chains: { mychain } }));
    const ids = (env: Record<string, string>) => defaultSchedules(loadConfig(env, file)).map((s) => s.scheduleId).filter((id) => id.endsWith('mychain'));
    expect(ids({})).toEqual(['fetch-metadata-mychain']);
    expect(ids({ RPC_URL_MYCHAIN: 'http://127.0.0.1:8545' })).toEqual(['ingest-mychain', 'fetch-metadata-mychain']);
  });

  // An empty RPC_URL_<CHAIN> enables nothing.
  it('ignores an empty RPC_URL_ variable', () => {
    expect(loadConfig({ RPC_URL_BASE: '', RPC_URL_NOSUCH: '' }).chains).toEqual({});
  });

  // Chain names are lowercase letters, digits and -; a bad chain address is refused with the reason.
  it('refuses a bad chain address and a bad chain name', () => {
    const dir = tempDataDir('config-chain-bad');
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ chains: { mychain: { chainId: 1, token: { address: '0x12', startBlock: 0 }, facilitatorNetwork: 'base' } } }));
    expect(() => loadConfig({}, file)).toThrow(`invalid setting chains.mychain.token.address (config file ${file}): must be a 0x-prefixed 20-byte hex address`);
    writeFileSync(file, JSON.stringify({ chains: { My_Chain: { chainId: 1, token: { address: `0x${'1'.repeat(40)}`, startBlock: 0 }, facilitatorNetwork: 'base' } } }));
    expect(() => loadConfig({}, file)).toThrow(`invalid setting chains.My_Chain (config file ${file}): chain names are lowercase letters, digits and -`);
  });

  // With chains in the file, a bad RPC URL from the environment is still named by its variable.
  it('names a bad RPC URL by its variable when the file describes chains too', () => {
    const file = path.join(tempDataDir('config-chain-env'), 'config.json');
    writeFileSync(file, JSON.stringify({ chains: { base: { confirmations: 12 } } }));
    expect(() => loadConfig({ RPC_URL_BASE: 'ftp://base.example' }, file)).toThrow(/^invalid setting RPC_URL_BASE: /);
  });
});
