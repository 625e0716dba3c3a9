// The OpenAPI document and the /docs page against the running API: the document is valid OpenAPI
// 3.1; it names exactly the routes the Koa routers serve; the query constraints it states are the
// ones the handlers enforce; real responses (bodies, status codes, headers) match what it says;
// /openapi.json and /docs are served without a key, cached, and /docs shows every operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type Router from '@koa/router';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { apiKeyPrefix, createAccount } from '../api/accounts.ts';
import { createApp } from '../api/app.ts';
import { createResponseSigner } from '../api/security/signing.ts';
import { operations, type HeaderName, type Operation } from '../api/openapi/operations.ts';
import { buildOpenApiDocument } from '../api/openapi/document.ts';
import { renderDocsPage } from '../api/openapi/docs-page.ts';
import { cliEnv, repoRoot, runCli } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';
import { sdnTinyCsv } from './helpers/identity.ts';

// From test/fixtures/import: pays 0x74f2… through a facilitator and owns agent 1 (with feedback).
const owner = '0x55fb6e92683190f4cade79f1b676ed77b599fbed';
const payee = '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c';
const solana = 'awF1tyZBDfKCYFYkyrsjVbDSdiduVJECqra5UrUTQCh';
const unknown = '0x1111111111111111111111111111111111111111';

const byId = new Map(operations.map((op) => [op.operationId, op]));
const operation = (id: string): Operation => byId.get(id) ?? expect.fail(`no operation ${id}`);

/** Headers whose presence on a response must be documented for that response. */
const tracked: HeaderName[] = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Quota-Limit',
  'X-Quota-Used',
  'X-Quota-Reset',
  'Cache-Control',
  'X-Signature',
  'X-Signature-Timestamp',
  'X-Signature-Key-Id',
];

describe('the OpenAPI document', () => {
  const doc = buildOpenApiDocument();

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes every operation, with the security, parameters and responses of its entry', () => {
    for (const op of operations) {
      const described = doc.paths[op.path]?.[op.method] as any;
      expect(described, `${op.method} ${op.path}`).toBeDefined();
      expect(described.security).toEqual(op.apiKey ? [{ ApiKey: [] }] : []);
      expect(Object.keys(described.responses).map(Number)).toEqual(Object.keys(op.responses).map(Number));
      const pathParams = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      expect((described.parameters ?? []).filter((p: any) => p.in === 'path').map((p: any) => p.name)).toEqual(pathParams);
      // Every error response lists exactly its codes, and only under their own status.
      for (const [status, response] of Object.entries(op.responses)) {
        if (!response.errorCodes) continue;
        const codes = described.responses[status].content['application/json'].schema.properties.error.properties.code.enum;
        expect(codes).toEqual(response.errorCodes);
      }
    }
    expect(Object.values(doc.paths).reduce((n, methods) => n + Object.keys(methods).length, 0)).toBe(operations.length);
    // The scheme names the prefix of the keys accounts are given, not of their internal ids.
    expect((doc.components.securitySchemes.ApiKey as { description: string }).description).toContain(`(${apiKeyPrefix}…)`);
  });

  it('states the query constraints of the handlers: integers with bounds and defaults, not digit strings', () => {
    const params = (id: string) => Object.fromEntries(((doc.paths[operation(id).path]!.get as any).parameters as any[]).map((p) => [p.name, p.schema]));
    expect(params('listAgents').limit).toEqual({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(params('listAgents').has_endpoint).toEqual({ type: 'boolean' });
    expect(params('legacyX402Identified').limit).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    expect(params('legacyX402Browse').min_score).toEqual({ type: 'number', minimum: 0, maximum: 100 });
  });

  it('the page escapes every text it shows', () => {
    const hostile = structuredClone(doc);
    hostile.info.description = '<script>alert(1)</script>';
    (hostile.paths['/v1/stats']!.get as any).summary = '"><img src=x onerror=alert(1)>';
    const html = renderDocsPage(hostile);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });
});

describe('the document against the running API', () => {
  const dataDir = tempDataDir('openapi');
  let server: RunningServer;
  let now = new Date();
  let keys: { free: string; growth: string; enterprise: string };

  beforeAll(async () => {
    for (const [file, kind] of [
      ['transfers.csv', 'transfers'],
      ['agents.csv', 'agents'],
      ['feedback.jsonl', 'feedback'],
    ]) {
      const imported = await runCli(['import', path.join(repoRoot, 'test/fixtures/import', file!), '--kind', kind!, '--on-bad-rows', 'skip'], cliEnv(dataDir));
      expect(imported.code, imported.stderr).toBe(0);
    }
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', SANCTIONS_LIST_SOURCE: sdnTinyCsv }), silentLogger, { now: () => now, usageFlushIntervalMs: 0 });
    await (await server.jobs.run('score', {})).done;
    await (await server.jobs.run('refresh-sanctions-list', {})).done;
    const [run] = await server.store.read(`SELECT strftime(scored_at, '%Y-%m-%dT%H:%M:%SZ') AS t FROM scoring_runs ORDER BY run_id DESC LIMIT 1`);
    now = new Date(Date.parse(String(run!.t)) + 60_000);
    keys = {
      free: (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key,
      growth: (await createAccount(server.store, { plan: 'growth' }, server.keys)).api_key,
      enterprise: (await createAccount(server.store, { plan: 'enterprise' }, server.keys)).api_key,
    };
  });
  afterAll(() => server?.close());

  interface Call {
    key?: string;
    query?: Record<string, string>;
    body?: unknown;
    headers?: Record<string, string>;
    /** Replaces the documented path (for path parameters). */
    path?: string;
    /** Keep the server clock (the free plan's per-second window); otherwise it moves on a second. */
    sameSecond?: boolean;
    /** A redirect is answered, not followed. */
    manualRedirect?: boolean;
  }

  /** Calls an operation and checks the answer against its documented response. */
  async function call(id: string, options: Call = {}) {
    const op = operation(id);
    if (!options.sameSecond) now = new Date(now.getTime() + 1_000);
    const url = new URL(`${server.url}${options.path ?? op.path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.append(name, value);
    const res = await fetch(url, {
      method: op.method.toUpperCase(),
      headers: {
        ...(options.key ? { 'X-API-Key': options.key } : {}),
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
      redirect: options.manualRedirect ? 'manual' : 'follow',
    });
    const text = await res.text();
    const documented = op.responses[res.status];
    expect(documented, `${id} answered ${res.status} (${text.slice(0, 200)}), which it does not document`).toBeDefined();
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    for (const header of tracked) {
      if (res.headers.has(header)) expect(documented!.headers, `${id} ${res.status} sent ${header}`).toContain(header);
    }
    // A redirect documents no body (Koa writes a line of text with it).
    if (documented!.body || documented!.contentType) expect(res.headers.get('content-type')).toContain(documented!.contentType ?? 'application/json');
    const body = documented!.contentType === 'text/html' || !documented!.body ? text : (JSON.parse(text) as any);
    if (documented!.body) {
      const parsed = documented!.body.safeParse(body);
      expect(parsed.success ? [] : parsed.error.issues, `${id} ${res.status} body`).toEqual([]);
    }
    return { status: res.status, headers: res.headers, body, text };
  }

  it('the Koa routers serve exactly the documented operations', () => {
    const signer = createResponseSigner(generateKeyPairSync('ed25519').privateKey);
    const app = createApp({ store: server.store, keys: server.keys, log: silentLogger, signupUrl: '/signup', signer, identity: server.identity });
    const served = app.middleware
      .flatMap((m) => ((m as { router?: Router }).router ? (m as unknown as { router: Router }).router.stack : []))
      .flatMap((layer) => layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m.toLowerCase()} ${openApiPath(String(layer.path))}`));
    expect(served.length).toBeGreaterThan(0);
    expect(new Set(served).size).toBe(served.length);
    expect(served.sort()).toEqual(operations.map((op) => `${op.method} ${op.path}`).sort());
  });

  it('every query constraint in the document is what the handler enforces', async () => {
    const doc = (await call('getOpenApi')).body;
    const probes: Record<string, Call> = {
      getReputation: { key: keys.growth, path: `/v1/reputation/${owner}` },
      listAgents: { key: keys.growth },
      legacyX402Identified: {},
      legacyX402Browse: {},
    };
    let checked = 0;
    for (const op of operations) {
      const params = ((doc.paths[op.path][op.method].parameters ?? []) as any[]).filter((p) => p.in === 'query');
      if (params.length === 0) continue;
      const probe = probes[op.operationId] ?? expect.fail(`no probe for ${op.operationId}, which takes query parameters`);
      const ask = (name: string, value: string) => call(op.operationId, { ...probe, query: { [name]: value } });
      const refused = async (name: string, value: string) => {
        const res = await ask(name, value);
        expect([op.operationId, name, value, res.status, res.body.error?.code]).toEqual([op.operationId, name, value, 400, 'bad_request']);
        expect(res.body.error.message).toContain(name);
      };
      const accepted = async (name: string, value: string) => {
        const res = await ask(name, value);
        expect([op.operationId, name, value, res.status]).toEqual([op.operationId, name, value, 200]);
        return res.body;
      };
      for (const { name, schema } of params) {
        checked++;
        if (schema.type === 'integer' || schema.type === 'number') {
          if (schema.maximum !== undefined) {
            await accepted(name, String(schema.maximum));
            await refused(name, String(schema.maximum + 1));
          }
          if (schema.minimum !== undefined) {
            await accepted(name, String(schema.minimum));
            await refused(name, String(schema.minimum - 1));
          }
          if (schema.type === 'integer') await refused(name, '1.5');
          await refused(name, 'ten');
          // A documented default is what the handler uses when the parameter is absent.
          if (schema.default !== undefined) {
            const res = await call(op.operationId, probe);
            if (name in res.body) expect([name, res.body[name]]).toEqual([name, schema.default]);
          }
        } else if (schema.type === 'boolean') {
          await accepted(name, 'true');
          await accepted(name, 'false');
          await refused(name, 'yes');
        } else if (schema.enum) {
          for (const value of schema.enum) await accepted(name, value);
          await refused(name, 'not-a-value');
        } else if (schema.type === 'string') {
          if (schema.pattern) await refused(name, 'NOT A MATCH!');
          if (schema.maxLength !== undefined) await refused(name, 'a'.repeat(schema.maxLength + 1));
        } else {
          expect.fail(`${op.operationId} ${name}: no check for ${JSON.stringify(schema)}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(15);
    // The limit stated for the batch body is the handler's too.
    const batch = (body: unknown) => call('batchReputation', { key: keys.growth, body });
    expect((await batch({ addresses: [] })).status).toBe(400);
    expect((await batch({ addresses: [owner], extra: 1 })).status).toBe(400);
    expect((await batch({ addresses: [owner], chain: 'NOT VALID' })).status).toBe(400);
  });

  it('real answers of every operation match their documented responses', async () => {
    // The reputation lookup: complete, redacted, both view variants, and its errors.
    const lookup = (options: Call) => call('getReputation', { path: `/v1/reputation/${owner}`, ...options });
    expect((await lookup({ key: keys.growth })).body.subject.address).toBe(owner);
    expect((await lookup({ key: keys.free })).body).not.toHaveProperty('subject');
    expect((await lookup({ key: keys.free, query: { view: 'summary' } })).body.cache).toEqual({ ttl_seconds: 300 });
    expect((await lookup({ key: keys.growth, query: { view: 'full' } })).body.decision).toBeDefined();
    expect((await lookup({ key: keys.enterprise })).headers.get('x-signature')).toBeTruthy();
    expect((await lookup({ key: keys.growth, path: `/v1/reputation/${solana}` })).status).toBe(200);
    expect((await lookup({ key: keys.growth, path: `/v1/reputation/${unknown}` })).body.error.code).toBe('unknown_address');
    expect((await lookup({ key: keys.growth, path: '/v1/reputation/nope' })).body.error.code).toBe('invalid_address');
    expect((await lookup({ key: keys.free, query: { view: 'full' } })).body.error.code).toBe('payment_required');
    expect((await lookup({})).body.error.code).toBe('signup_required');
    expect((await lookup({ key: keys.free, sameSecond: true })).status).toBe(200);
    const limited = await lookup({ key: keys.free, sameSecond: true });
    expect([limited.status, limited.body.error.code]).toEqual([429, 'rate_limited']);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    // known_unscored: indexed, never scored.
    const known = '0x00000000000000000000000000000000000000b0';
    await server.store.write((tx) => tx.run(`INSERT INTO known_addresses VALUES ($1, 'evm', 'assess', utc_now())`, [known]));
    expect((await lookup({ key: keys.growth, path: `/v1/reputation/${known}` })).body.score.status).toBe('known_unscored');
    expect((await lookup({ key: keys.free, path: `/v1/reputation/${known}` })).body.score.status).toBe('known_unscored');
    // Stale: the variant answers 503 stale_data.
    const saved = now;
    now = new Date(now.getTime() + 25 * 3_600_000);
    expect((await lookup({ key: keys.growth, query: { view: 'summary' } })).body.error.code).toBe('stale_data');
    expect((await lookup({ key: keys.growth })).body.score.status).toBe('stale');
    now = saved;

    const batch = await call('batchReputation', { key: keys.growth, body: { addresses: [owner, unknown, 'nope', solana] } });
    expect(batch.body.results.map((r: { status: number }) => r.status)).toEqual([200, 404, 400, 200]);
    expect((await call('batchReputation', { key: keys.free, body: { addresses: [owner] } })).body.error.code).toBe('payment_required');
    expect((await call('batchReputation', { key: keys.growth, body: 'addresses=x', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await call('batchReputation', { key: keys.growth, body: '{"addresses": [' })).status).toBe(400);
    expect((await call('batchReputation', { key: keys.growth, body: { addresses: Array(2_000).fill(payee) } })).status).toBe(413);

    // Verification sessions: every poll state, the page, the sandbox form and the keyless routes' errors.
    const created = await call('createSession', { key: keys.growth, body: { product_name: 'Docs' } });
    expect(created.body.status).toBe('pending');
    expect((await call('createSession', { key: keys.growth })).status).toBe(200);
    expect((await call('createSession', { key: keys.growth, body: { return_url: 'https://x.example' } })).body.error.code).toBe('bad_request');
    expect((await call('createSession', { key: keys.free, body: {} })).body.error.code).toBe('payment_required');
    expect((await call('createSession', { body: {} })).body.error.code).toBe('signup_required');
    const session = (s: { session_id: string; poll_secret: string }, secret = s.poll_secret) =>
      call('pollSession', { path: `/v1/sessions/${s.session_id}`, headers: { 'X-Poll-Secret': secret } });
    const form = (s: { session_id: string }, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      call('submitSandboxVerification', {
        path: `/verify/${s.session_id}`,
        body: new URLSearchParams(fields).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        manualRedirect: true,
      });
    expect((await session(created.body)).body.status).toBe('pending');
    expect((await session(created.body, 'pls_wrong')).body.error.code).toBe('unauthorized');
    expect((await call('pollSession', { path: `/v1/sessions/${created.body.session_id}` })).body.error.code).toBe('unauthorized');
    expect((await call('verifyPage', { path: `/verify/${created.body.session_id}` })).text).toContain('data-outcome="verified"');
    expect((await call('verifyPage', { path: '/verify/sess_unknown' })).status).toBe(404);
    expect((await form(created.body, { outcome: 'verified' })).status).toBe(400);
    expect((await form(created.body, { outcome: 'failed' }, { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403);
    expect((await form(created.body, { outcome: 'verified', jurisdiction: 'US', age: '21+', name: 'Margaret Whitfield' })).status).toBe(303);
    expect((await session(created.body)).body.status).toBe('verified');
    expect((await session(created.body)).body.status).toBe('consumed');
    expect((await call('startHostedVerification', { path: `/verify/${created.body.session_id}/start`, manualRedirect: true })).status).toBe(303);
    const failed = (await call('createSession', { key: keys.growth, body: {} })).body;
    await form(failed, { outcome: 'failed' });
    expect((await session(failed)).body.status).toBe('failed');
    const flagged = (await call('createSession', { key: keys.growth, body: {} })).body;
    await form(flagged, { outcome: 'verified', jurisdiction: 'BZ', age: '18+', name: 'Daniel Moreno' });
    expect((await session(flagged)).body.status).toBe('flagged');
    const expired = (await call('createSession', { key: keys.growth, body: {} })).body;
    now = new Date(now.getTime() + 3_600_000);
    expect((await session(expired)).body.status).toBe('expired');
    expect((await call('stripeIdentityWebhook', { body: '{}', headers: { 'Stripe-Signature': 't=1,v1=00' } })).body.error.code).toBe('not_found');

    // Assess: test mode, a live wallet under a policy with a signer (a verify_url and its session), its errors.
    const reserved = `0x${'0'.repeat(39)}6`;
    expect((await call('assess', { key: keys.growth, body: { address: reserved, test: true, policy: { blocked_jurisdictions: ['IR'] } } })).body.decision).toBe('deny');
    const live = await call('assess', { key: keys.growth, body: { address: owner, policy: { require_kyc: true, min_age: 21 }, signer: { address: payee, network: 'evm' } } });
    expect(live.body).toMatchObject({ decision: 'deny', verify_url: expect.any(String), signer_match: { kind: 'wallet_signer_mismatch' } });
    expect((await call('assess', { key: keys.growth, body: {} })).body.error.code).toBe('invalid_identity');
    expect((await call('assess', { key: keys.growth, body: { operator_token: 'opc_nope' } })).body.error.code).toBe('invalid_credential');
    expect((await call('assess', { key: keys.free, body: { address: reserved, test: true } })).body.error.code).toBe('payment_required');

    expect((await call('getStats', { key: keys.growth })).body.version).toBe('v2');
    expect((await call('getStats', {})).status).toBe(401);
    const agents = await call('listAgents', { key: keys.growth, query: { limit: '1' } });
    expect(agents.body.items).toHaveLength(1);
    expect((await call('listAgents', { key: keys.growth, query: { limit: '1', cursor: agents.body.next_cursor } })).body.items).toHaveLength(1);
    expect((await call('listAgents', { key: keys.growth, query: { cursor: 'bm9wZQ' } })).status).toBe(400);

    expect((await call('legacyX402Stats')).body.total_wallets).toBeGreaterThan(0);
    expect((await call('legacyErc8004Stats')).body.total_agents).toBeGreaterThan(0);
    expect((await call('legacyX402Identified')).body.wallets.length).toBeGreaterThan(0);
    await call('legacyX402Browse', { query: { limit: '5' } });
    expect((await call('getHealth')).body.status).toBe('ok');
    await call('getSignup');
    expect((await call('getSigningKey')).body.algorithm).toBe('Ed25519');
  });

  it('GET /openapi.json: no key, the generated document, public cache and ETag revalidation', async () => {
    const res = await call('getOpenApi');
    expect(res.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = res.headers.get('etag')!;
    expect(etag).toBeTruthy();
    // fetch() adds Cache-Control: no-cache to a conditional request unless one is given.
    const again = await fetch(`${server.url}/openapi.json`, { headers: { 'If-None-Match': etag, 'Cache-Control': 'max-age=0' } });
    expect(again.status).toBe(304);
  });

  it('GET /docs: a self-contained page with every operation, its parameters, responses and codes', async () => {
    const { body: html, headers } = await call('getDocs');
    expect(headers.get('cache-control')).toBe('public, max-age=300');
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
    for (const op of operations) {
      const start = html.indexOf(`id="op-${op.operationId}"`);
      expect(start, op.operationId).toBeGreaterThan(-1);
      const end = html.indexOf('</section>', start);
      const section = html.slice(start, end);
      expect(section).toContain(`<code>${op.path}</code>`);
      expect(section).toContain(op.method.toUpperCase());
      for (const name of Object.keys({ ...op.request.params?.shape, ...op.request.query?.shape })) expect(section).toContain(`<code>${name}</code>`);
      for (const [status, response] of Object.entries(op.responses)) {
        expect(section).toContain(`<td class="status">${status}</td>`);
        for (const code of response.errorCodes ?? []) expect(section).toContain(`<code>${code}</code>`);
      }
    }
  });
});

/** Koa router paths to OpenAPI ones: `:name` is a parameter, `\:` a literal colon. */
function openApiPath(koaPath: string): string {
  return koaPath.replace(/(?<!\\):(\w+)/g, '{$1}').replace(/\\:/g, ':');
}
