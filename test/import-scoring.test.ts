// Imported payments (EVM and Solana) reach scoring and the API like chain-ingested ones, through
// the CLI command a data team would run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { cliEnv, repoRoot, runCli } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

const fixture = (name: string) => path.join(repoRoot, 'test/fixtures/import', name);

describe('reputation import → score → lookup', () => {
  const dataDir = tempDataDir('import-scoring');
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    // Import before the server starts (the CLI opens the database itself), then serve.
    const imported = await runCli(['import', fixture('transfers.csv'), '--kind', 'transfers'], cliEnv(dataDir));
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/read 5 rows, loaded 5 rows, 0 bad/);
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger);
    await (await server.jobs.run('score', {})).done;
    key = (await createAccount(server.store, { plan: 'pro' }, server.keys)).api_key;
  });
  afterAll(() => server?.close());

  const lookup = async (address: string) => {
    const res = await fetch(`${server.url}/v1/reputation/${address}`, { headers: { 'X-API-Key': key } });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('a Solana payee paid through a known facilitator fee payer is scored, address verbatim', async () => {
    const { status, body } = await lookup('awF1tyZBDfKCYFYkyrsjVbDSdiduVJECqra5UrUTQCh');
    expect(status).toBe(200);
    expect(body.subject).toEqual({ address: 'awF1tyZBDfKCYFYkyrsjVbDSdiduVJECqra5UrUTQCh', chains: ['solana'] });
    expect(body.chains[0].activity).toMatchObject({ as_candidate_payee: 1, as_verified_payee: 1, counterparties_count: 1 });
  });

  it('an EVM payee from the file is scored; an unauthorised transfer is not a payment', async () => {
    const paid = await lookup('0x74F29EE5E3ABD86B4D83A8F41EB26857E5CEEF0C');
    expect(paid.body.chains[0]).toMatchObject({ chain: 'base', activity: { as_verified_payee: 1 } });
    // Row 3 of the file is authorized=false: neither side has x402 activity.
    expect((await lookup('0xc4c17129e46c24879730411d81f6c9b1c189ab1b')).status).toBe(404);
  });

  it('importing the same file again does not double the payments', async () => {
    const again = await runCli(['import', fixture('transfers.csv'), '--kind', 'transfers'], cliEnv(dataDir));
    expect(again.code).toBe(0);
    await (await server.jobs.run('score', {})).done;
    const { body } = await lookup('awF1tyZBDfKCYFYkyrsjVbDSdiduVJECqra5UrUTQCh');
    expect(body.chains[0].activity.as_candidate_payee).toBe(1);
  });

  it('a refused import exits 1, lists the bad lines, and writes nothing', async () => {
    const before = await server.store.read('SELECT count(*)::INTEGER AS n FROM imported_transfers');
    const refused = await runCli(['import', fixture('transfers-bad.csv'), '--kind', 'transfers'], cliEnv(dataDir));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/refused: nothing was written/);
    expect(refused.stdout).toMatch(/^line\s+column\s+reason/m);
    expect(await server.store.read('SELECT count(*)::INTEGER AS n FROM imported_transfers')).toEqual(before);
  });
});
