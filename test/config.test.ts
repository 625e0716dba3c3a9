// Configuration: defaults, environment over file, shipped chain profiles, and errors that name
// the setting.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../pipeline/config.ts';
import { defaultSchedules } from '../jobs/definitions.ts';
import { tempDataDir } from './helpers/temp.ts';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 8080, host: '127.0.0.1', devnetPort: 8545, chains: {}, publicBaseUrl: 'http://127.0.0.1:8080' });
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
    [{ PORT: 'eighty' }, /^invalid setting PORT: /],
    [{ PORT: '70000' }, /^invalid setting PORT: /],
    [{ REDIS_URL: 'localhost:6379' }, /^invalid setting REDIS_URL: /],
    [{ RPC_URL_BASE: 'ftp://x' }, /^invalid setting RPC_URL_BASE: /],
    [{ RPC_URL_MYCHAIN: 'http://127.0.0.1:8545' }, /^RPC_URL_MYCHAIN names chain mychain, which has no shipped profile \(base, devnet\)/],
    [{ DB_READ_CONNECTIONS: '0' }, /^invalid setting DB_READ_CONNECTIONS: /],
    [{ STALE_AFTER_SECONDS: '0' }, /^invalid setting STALE_AFTER_SECONDS: /],
  ])('%j is refused with a message naming the setting', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('names a bad value by its key in the config file, and refuses an unknown key', () => {
    const file = path.join(tempDataDir('config-bad'), 'config.json');
    writeFileSync(file, JSON.stringify({ port: 'abc' }));
    expect(() => loadConfig({}, file)).toThrow(new ConfigError(`invalid setting port (config file ${file}): Invalid input: expected number, received NaN`));
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
