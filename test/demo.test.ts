// What a newcomer does: `npm run demo`, copy a printed curl command, get a real score; and the
// devnet on its own, ingested and scored by CLI commands that open the database themselves.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cliEnv, repoRoot, runCli } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';
import { planNames } from '../api/plans.ts';

function startCommand(args: string[], env: NodeJS.ProcessEnv, readyLine: RegExp) {
  const child = spawn(process.execPath, ['bin/reputation.js', ...args], { cwd: repoRoot, env });
  let stdout = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
      if (readyLine.test(stdout)) resolve(stdout);
    });
    void exited.then((code) => reject(new Error(`exited ${code} before ready`)));
  });
  return { child, ready, exited };
}

describe('npm run demo', () => {
  it('prints one line per demo account and curl commands that return real scores', { timeout: 120_000 }, async () => {
    // A smaller simulated history than the default keeps the test quick; the path is the same.
    const demo = startCommand(['demo'], cliEnv(tempDataDir('demo'), { DEVNET_PORT: '0', DEMO_AGENTS: '40', DEMO_PAYMENTS: '300' }), /Ctrl-C stops the demo\./);
    try {
      const out = await demo.ready;
      const accounts = out.split('\n').filter((l) => l.startsWith('demo account '));
      expect(accounts.map((l) => /plan (\w+)/.exec(l)![1])).toEqual([...planNames]);
      for (const line of accounts) expect(line).toMatch(/X-API-Key: rpk_[A-Za-z0-9]{32}$/);

      const curls = out.split('\n').filter((l) => l.trim().startsWith('curl ')).map((l) => l.trim());
      expect(curls.length).toBeGreaterThanOrEqual(4);
      const run = (command: string) => JSON.parse(execFileSync('sh', ['-c', command], { encoding: 'utf8' }));
      const free = run(curls[0]!);
      const paid = run(curls[1]!);
      expect(free.score).toMatchObject({ grade: expect.stringMatching(/^[A-F]$/), status: 'scored' });
      expect(free.chains[0].activity).toBeUndefined();
      expect(paid.score).toEqual(free.score);
      expect(paid.chains[0].activity.total_verified_transactions).toBeGreaterThan(1);
      const quiet = run(curls[2]!);
      expect(quiet.chains[0].activity.total_candidate_transactions).toBeLessThan(paid.chains[0].activity.total_candidate_transactions);
      // A plain merchant: no agents paid there or owned, so no operator score.
      expect(quiet).not.toHaveProperty('operator_score');
      expect(quiet.agents).toEqual([]);
      expect(quiet.score.value).toBeLessThan(paid.score.value);
      const operator = run(curls[3]!);
      expect(operator).toMatchObject({ model_version: 'v1', decision: { policy: { min_grade: 'D' } }, identity: { registered_agent: true } });
      expect(out).toMatch(/Simulated: 40 ERC-8004 agents, 300 x402 payments/);
      // The verification session it made: its page names the merchant, its poll answers pending.
      const verifyUrl = out.split('\n').map((l) => l.trim()).find((l) => /^http:\/\/\S+\/verify\/sess_/.test(l))!;
      expect(await (await fetch(verifyUrl)).text()).toContain('Demo merchant (pro)');
      const polled = run(curls.find((c) => c.includes('X-Poll-Secret'))!);
      expect(polled).toMatchObject({ session_id: verifyUrl.split('/').pop(), status: 'pending', next_steps: { action: 'continue_polling' } });
    } finally {
      demo.child.kill('SIGINT');
    }
    expect(await demo.exited).toBe(0);
  });
});

describe('npm run demo with a bad size', () => {
  it('refuses before starting anything, naming the setting', async () => {
    for (const [name, value] of [['DEMO_AGENTS', '0'], ['DEMO_PAYMENTS', 'abc']] as const) {
      const run = await runCli(['demo'], cliEnv(tempDataDir('demo-bad'), { DEVNET_PORT: '0', [name]: value }));
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(`reputation: invalid setting ${name}: must be a whole number of at least 1, got "${value}"`);
    }
  });
});

describe('reputation devnet + ingest + score without a server', () => {
  it('ingests the simulated devnet into DATA_DIR and scores it', { timeout: 120_000 }, async () => {
    const dataDir = tempDataDir('devnet-cli');
    const truthFile = path.join(dataDir, 'truth.json');
    const devnet = startCommand(['devnet', '--agents', '10', '--payments', '60', '--seed', 'cli-test', '--truth', truthFile], cliEnv(dataDir, { DEVNET_PORT: '0' }), /ingest it with: /);
    try {
      const printed = await devnet.ready;
      const rpcUrl = /RPC_URL_DEVNET=(\S+)/.exec(printed)![1]!;
      // The registration server's certificate, named by the devnet's port: a second devnet on the
      // same DATA_DIR does not replace the one a running demo trusts.
      const caFile = / trust (\S+) /.exec(printed)![1]!;
      expect(caFile).toBe(path.join(dataDir, `devnet-${new URL(rpcUrl).port}-ca.pem`));
      expect(readFileSync(caFile, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
      const truth = JSON.parse(readFileSync(truthFile, 'utf8')) as { totals: { candidate: number; agents: number }; addresses: Record<string, unknown> };
      const env = cliEnv(dataDir, { RPC_URL_DEVNET: rpcUrl });
      const ingest = await runCli(['ingest'], env);
      expect(ingest.code).toBe(0);
      expect(ingest.stdout).toMatch(/devnet\s+token\s+0\s+\d+\s+\d+/);
      expect(ingest.stdout).toMatch(/devnet\s+identity\s+0/);
      // fromBlock, toBlock and the count of blocks read: a second ingest finds none.
      const [, from, to, blocks] = /devnet\s+token\s+(\d+)\s+(\d+)\s+(\d+)/.exec(ingest.stdout)!;
      expect(Number(blocks)).toBe(Number(to) - Number(from) + 1);
      const again = await runCli(['ingest'], env);
      expect(again.stdout).toMatch(new RegExp(`devnet\\s+token\\s+${Number(to) + 1}\\s+${to}\\s+0\\s+0\\s`));
      // Not a terminal: progress comes as plain lines (blocks done of total, logs/s, ETA).
      expect(ingest.stderr).toMatch(/^progress 100% (\d+)\/\1 blocks \d+\/s ETA 0s devnet\/token \d+ logs$/m);
      // A scoring run is exported for analysts at once; `reputation sql` reads that export, not the database.
      const score = await runCli(['score'], env);
      expect(score.stdout).toMatch(/runId\s+kind\s+addressCount\s+rescoredCount\s+scoredAt\s+exportDirectory\n.*\n1\s+full\s.*\/exports\/run=1\n/);
      const facts = await runCli(['sql', `SELECT (SELECT count(*) FROM payments)::INTEGER AS payments, (SELECT count(*) FROM agent_scores)::INTEGER AS agents, (SELECT count(*) FROM chain_scores)::INTEGER AS scored`, '--format', 'json'], env);
      expect(JSON.parse(facts.stdout)).toEqual({ payments: truth.totals.candidate, agents: truth.totals.agents, scored: Object.keys(truth.addresses).length });
    } finally {
      devnet.child.kill('SIGTERM');
    }
    expect(await devnet.exited).toBe(0);
  });
});
