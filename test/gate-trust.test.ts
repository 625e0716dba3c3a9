// The older trust-threshold gate (spec 7.2 rule 4) against the real service with real scores: a
// payee's history of 120 payments imported and scored, X-Wallet-Address read, the base chain's grade compared
// with minGrade, its denials, its cache, and the service failing.
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Koa from 'koa';
import { createTrustGate, grades, isDenial, type GateDenial, type GatePass, type Grade, type ServiceProblem, type TrustGateOptions } from 'wallet-reputation/gate';
import { call } from './helpers/identity.ts';
import { cliEnv, runCli } from './helpers/cli.ts';
import { answeringServer, countingFetch, freshWallet, gateService, stoppedServiceUrl } from './helpers/gate.ts';
import { tempDataDir } from './helpers/temp.ts';

const payee = `0x${'ab'.repeat(20)}`;
// A facilitator of the shared list (as in test/fixtures/import/transfers.csv): verified payments.
const facilitator = '0x179761d9eed0f0d1599330cc94b0926e68ae87f1';
const usdcBase = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

/** 120 USDC payments to `payee` from 120 payers over the last year, settled by the facilitator: a middling grade (D when written). */
function payeeHistory(): string {
  const lines = ['chain,block_number,block_time,tx_hash,log_index,token,from_address,to_address,value,tx_sender,authorized'];
  for (let i = 0; i < 120; i++) {
    const at = new Date(Date.now() - ((i * 3) % 360) * 86_400_000 - i * 60_000).toISOString();
    const payer = `0x${(i + 1).toString(16).padStart(40, 'c')}`;
    const tx = `0x${(i + 1).toString(16).padStart(64, 'e')}`;
    lines.push(`base,${38_000_000 + i},${at},${tx},0,${usdcBase},${payer},${payee},${1_000_000 + i * 37_000},${facilitator},true`);
  }
  return `${lines.join('\n')}\n`;
}

describe('createTrustGate', () => {
  const csvDir = tempDataDir('gate-trust-csv');
  const service = gateService('gate-trust', async (dataDir) => {
    const csv = path.join(csvDir, 'payee.csv');
    writeFileSync(csv, payeeHistory());
    const imported = await runCli(['import', csv, '--kind', 'transfers'], cliEnv(dataDir));
    expect(imported.code, imported.stderr).toBe(0);
  });
  let grade: Grade;
  beforeAll(async () => {
    await (await service.server.jobs.run('score', {})).done;
    const record = (await call(service.url, 'GET', `/v1/reputation/${payee}?chain=base`, { key: service.keys.pro })).body;
    grade = record.chains.find((c: { chain: string }) => c.chain === 'base').score.grade;
    // Neither the best nor the worst grade, so both sides of a threshold can be seen.
    expect(['B', 'C', 'D']).toContain(grade);
  });
  const trustGate = (options: Partial<TrustGateOptions> = {}) => {
    const counter = countingFetch();
    return { gate: createTrustGate({ serviceUrl: service.url, apiKey: service.keys.pro, minGrade: grade, fetch: counter.fetch, ...options }), counter };
  };
  const asWallet = (wallet: string) => ({ headers: { 'X-Wallet-Address': wallet } });

  it('passes at the minimum grade (any case of the address), on a free plan too, asking the plain record of chain base', async () => {
    // One lookup: the free plan answers one a second.
    const { gate, counter } = trustGate({ apiKey: service.keys.free });
    const pass = (await gate.evaluate(asWallet(payee.toUpperCase().replace('0X', '0x')))) as GatePass;
    expect(isDenial(pass)).toBe(false);
    expect(pass).toMatchObject({ identityStatus: 'verified', identityMode: 'wallet', walletAddress: payee, grade, reputation: { chains: [{ chain: 'base', score: { grade } }] } });
    expect(counter.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`GET /v1/reputation/${payee}`]);
  });

  it('below the minimum: 403 wallet_not_trusted, grade_below_threshold, contact_support', async () => {
    const better = grades[grades.indexOf(grade) - 1];
    const worse = grades[grades.indexOf(grade) + 1];
    const denial = (await trustGate({ minGrade: better! }).gate.evaluate(asWallet(payee))) as GateDenial;
    expect([denial.status, denial.body.error.code, denial.body.error.agent_instructions.action]).toEqual([403, 'wallet_not_trusted', 'contact_support']);
    expect(denial.body.error).toMatchObject({ reasons: ['grade_below_threshold'], grade, min_grade: better, chain: 'base' });
    expect(isDenial(await trustGate({ minGrade: worse! }).gate.evaluate(asWallet(payee)))).toBe(false);
  });

  it('a wallet the service does not know, or has no grade for on the chain: not trusted', async () => {
    const unknown = (await trustGate({ minGrade: 'F' }).gate.evaluate(asWallet(freshWallet()))) as GateDenial;
    expect(unknown.body.error).toMatchObject({ code: 'wallet_not_trusted', reasons: ['grade_below_threshold'], grade: null });
    const elsewhere = (await trustGate({ minGrade: 'F', chain: 'ethereum' }).gate.evaluate(asWallet(payee))) as GateDenial;
    expect(elsewhere.body.error).toMatchObject({ code: 'wallet_not_trusted', grade: null, chain: 'ethereum' });
  });

  it('no X-Wallet-Address (an operator token does not count), or one that is no address: 403 missing_wallet_address', async () => {
    const { gate, counter } = trustGate();
    for (const headers of [{}, { 'X-Operator-Token': 'opc_x' }, { 'X-Wallet-Address': 'not-a-wallet' }]) {
      const denial = (await gate.evaluate({ headers })) as GateDenial;
      expect([denial.status, denial.body.error.code, denial.body.error.agent_instructions.action]).toEqual([403, 'missing_wallet_address', 'probe_identity_then_session']);
    }
    expect(counter.calls).toEqual([]);
  });

  it('caches verdicts for cacheTtlSeconds (300 s by default): a second request asks nothing', async () => {
    const { gate, counter } = trustGate();
    const first = await gate.evaluate(asWallet(payee));
    expect(await gate.evaluate(asWallet(payee))).toEqual(first);
    const denied = await gate.evaluate(asWallet(freshWallet()));
    expect(isDenial(denied)).toBe(true);
    expect(counter.calls).toHaveLength(2);
  });

  it('the service stopped: 503 api_error, or with failOpen a degraded pass', async () => {
    const stopped = await stoppedServiceUrl();
    const denial = (await trustGate({ serviceUrl: stopped }).gate.evaluate(asWallet(payee))) as GateDenial;
    expect([denial.status, denial.body.error.code, denial.body.error.infra_reason, denial.body.error.agent_instructions.action]).toEqual([503, 'api_error', 'api_error', 'retry_with_backoff']);
    expect(await trustGate({ serviceUrl: stopped, failOpen: true }).gate.evaluate(asWallet(payee))).toEqual({
      identityStatus: 'unverified',
      identityMode: 'wallet',
      walletAddress: payee,
      network: 'evm',
      signerChecked: false,
      degraded: true,
      infraReason: 'api_error',
    });
  });

  it('the service refusing the merchant\'s key: 503 api_error, contact_merchant, even with failOpen; the detail in onServiceProblem only', async () => {
    const problems: ServiceProblem[] = [];
    const { gate, counter } = trustGate({ apiKey: 'rpk_notakeyofthisservice', failOpen: true, onServiceProblem: (p) => problems.push(p) });
    for (let i = 0; i < 2; i++) {
      const denial = (await gate.evaluate(asWallet(payee))) as GateDenial;
      expect([denial.status, denial.body.error.code, denial.body.error.infra_reason, denial.body.error.agent_instructions.action]).toEqual([503, 'api_error', 'api_error', 'contact_merchant']);
      expect(denial.body.error.message).toBe("the merchant's identity check is misconfigured: contact the merchant");
    }
    // Not kept: each request asks again.
    expect(counter.calls).toHaveLength(2);
    expect(problems).toEqual([expect.objectContaining({ call: 'reputation', status: 401 }), expect.objectContaining({ call: 'reputation', status: 401 })]);
  });

  it('a plan without the lookup (402 payment_required): 403 payment_required, contact_merchant, even with failOpen', async () => {
    // Every plan of this service reads the plain record: a service that answers 402.
    const { gate } = trustGate({ serviceUrl: await answeringServer(402, 'payment_required'), failOpen: true });
    const denial = (await gate.evaluate(asWallet(payee))) as GateDenial;
    expect([denial.status, denial.body.error.code, denial.body.error.agent_instructions.action]).toEqual([403, 'payment_required', 'contact_merchant']);
    expect(denial.body.error.message).toBe("the merchant's plan with the identity service does not include reputation lookups");
  });

  it('refuses a minGrade that is not a grade', () => {
    expect(() => createTrustGate({ serviceUrl: service.url, apiKey: service.keys.free, minGrade: 'E' as Grade })).toThrow(/minGrade/);
  });

  it('in front of Koa: the pass on ctx.state.identity, a denial answered', async () => {
    const app = new Koa();
    app.use(trustGate().gate.koa());
    app.use((ctx) => {
      ctx.body = { grade: ctx.state.identity.grade };
    });
    const server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    afterAll(() => new Promise((resolve) => server.close(resolve)));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const ok = await fetch(url, { headers: { 'X-Wallet-Address': payee } });
    expect([ok.status, await ok.json()]).toEqual([200, { grade }]);
    const refused = await fetch(url);
    expect([refused.status, ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([403, 'missing_wallet_address']);
  });
});
