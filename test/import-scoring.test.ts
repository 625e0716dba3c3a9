// Imported payments (EVM and Solana) reach scoring and the API like chain-ingested ones, through
// the CLI command a data team would run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, writeFileSync } from 'node:fs';
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

  it('an address paid on two chains has one top-level row: chains best first, roles summed over both', async () => {
    // The base payee of transfers.csv, also paid on polygon by a sender that is no facilitator:
    // a candidate payment only, so base (verified) scores higher and comes first.
    const file = path.join(dataDir, 'polygon.csv');
    writeFileSync(file, [
      'chain,block_number,block_time,tx_hash,log_index,token,from_address,to_address,value,tx_sender,authorized',
      'polygon,64000000,2025-11-05T12:00:00Z,0x5d1c0f0c4f6b4d1e0b7c9a3e2f8d6c4b2a0918273645f6e7d8c9b0a1f2e3d4c5,4,0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359,0x55fb6e92683190f4cade79f1b676ed77b599fbed,0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c,2500000,0x55fb6e92683190f4cade79f1b676ed77b599fbed,true',
    ].join('\n'));
    expect((await runCli(['import', file, '--kind', 'transfers'], cliEnv(dataDir))).code).toBe(0);
    await (await server.jobs.run('score', {})).done;

    const payee = '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c';
    const chains = await server.store.read('SELECT chain, score, entity_type FROM chain_scores WHERE address = $1 ORDER BY score DESC, chain', [payee]);
    expect(chains.map((c) => c.chain)).toEqual(['base', 'polygon']);
    expect(Number(chains[0]!.score)).toBeGreaterThan(Number(chains[1]!.score));
    const [row] = await server.store.read(
      `SELECT chains, score, entity_type, candidate_as_payer, candidate_as_payee, verified_as_payer, verified_as_payee
         FROM address_scores WHERE address = $1`, [payee]);
    expect(row).toMatchObject({
      chains: ['base', 'polygon'], score: chains[0]!.score, entity_type: chains[0]!.entity_type,
      candidate_as_payer: 0, candidate_as_payee: 2, verified_as_payer: 0, verified_as_payee: 1,
    });
    const { body } = await lookup(payee);
    expect(body.subject.chains).toEqual(['base', 'polygon']);
  });

  it('an agent token id above 2^53 is served as the exact whole number', async () => {
    // uint256 ids: JSON.parse rounds 2^64 + 1 to 2^64. The owner is the payer of transfers.csv.
    const owner = '0x55fb6e92683190f4cade79f1b676ed77b599fbed';
    const file = path.join(dataDir, 'big-id-agents.csv');
    writeFileSync(file, [
      'chain,registry,agent_id,owner',
      `base,0x8004A169FB4a3325136EB29fA0ceB6D2e539a432,18446744073709551617,${owner}`,
      `base,0x8004A169FB4a3325136EB29fA0ceB6D2e539a432,9007199254740993,${owner}`,
      `base,0x8004A169FB4a3325136EB29fA0ceB6D2e539a432,12,${owner}`,
    ].join('\n'));
    expect((await runCli(['import', file, '--kind', 'agents'], cliEnv(dataDir))).code).toBe(0);
    await (await server.jobs.run('score', {})).done;
    const res = await fetch(`${server.url}/v1/reputation/${owner}`, { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(200);
    const ids = async (res: Response) => [...(await res.text()).matchAll(/"token_id":(\d+)/g)].map((m) => m[1]);
    expect(await ids(res)).toEqual(['12', '9007199254740993', '18446744073709551617']);
    const batch = await fetch(`${server.url}/v1/reputation:batch`, {
      method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify({ addresses: [owner] }),
    });
    expect(batch.status).toBe(200);
    expect(await ids(batch)).toEqual(['12', '9007199254740993', '18446744073709551617']);
    // Imported without a registration URI: the agent browse lists agent_uri as null, not "".
    const agents = await fetch(`${server.url}/v1/agents?limit=100`, { headers: { 'X-API-Key': key } });
    const listed = ((await agents.json()) as { items: { owner: string; agent_id: string; agent_uri: string | null }[] }).items.filter((a) => a.owner === owner);
    expect(listed.map((a) => [a.agent_id, a.agent_uri]).sort()).toEqual([['12', null], ['18446744073709551617', null], ['9007199254740993', null]]);
  });

  it('a refused import exits 1, lists the bad lines, and writes nothing', async () => {
    const before = await server.store.read('SELECT count(*)::INTEGER AS n FROM imported_transfers');
    const refused = await runCli(['import', fixture('transfers-bad.csv'), '--kind', 'transfers'], cliEnv(dataDir));
    expect(refused.code).toBe(1);
    // The summary line counts the bad rows, not the rows left unloaded.
    expect(refused.stdout.split('\n')[0]).toBe(`${fixture('transfers-bad.csv')} (csv, transfers): read 18 rows, refused: nothing was written, 13 bad`);
    expect(refused.stdout).toMatch(/^line\s+column\s+reason/m);
    expect(await server.store.read('SELECT count(*)::INTEGER AS n FROM imported_transfers')).toEqual(before);
  });

  it('--json prints the report as one line, and --format reads a file whose name does not tell its format', async () => {
    const file = path.join(dataDir, 'transfers.export');
    copyFileSync(fixture('transfers.csv'), file);
    const result = await runCli(['import', file, '--kind', 'transfers', '--format', 'csv', '--json'], cliEnv(dataDir));
    expect(result.code).toBe(0);
    expect(result.stdout.endsWith('\n')).toBe(true);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      kind: 'transfers', format: 'csv', file, rowsRead: 5, rowsLoaded: 5, rowsSkipped: 0, badRows: [], refused: false,
    });
  });

  it('a relative path is read from the directory the command runs in, not the server\'s', async () => {
    // The server runs in this process (repository root); the command runs in DATA_DIR.
    copyFileSync(fixture('transfers.csv'), path.join(dataDir, 'relative.csv'));
    const result = await runCli(['import', 'relative.csv', '--kind', 'transfers'], cliEnv(dataDir), dataDir);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`${path.join(dataDir, 'relative.csv')} (csv, transfers): read 5 rows, loaded 5 rows, 0 bad\n`);
  });

  it('with --on-bad-rows skip, loads the good rows, exits 0 and still lists the bad lines', async () => {
    const result = await runCli(['import', fixture('transfers-bad.csv'), '--kind', 'transfers', '--on-bad-rows', 'skip'], cliEnv(dataDir));
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(`${fixture('transfers-bad.csv')} (csv, transfers): read 18 rows, loaded 5 rows, 13 bad`);
    expect(result.stdout).toMatch(/^line\s+column\s+reason/m);
    expect(result.stdout).toMatch(/^3\s+block_time\s+block_time 'yesterday' is not/m);
  });
});
