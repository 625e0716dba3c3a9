// For the merchant gate's tests: the real service started in-process with the real OFAC address
// lists and the tiny SDN names list (so screening and the signer check answer), a movable clock,
// merchant accounts per plan; a fetch that counts (and may reroute) the gate's calls; servers
// that never answer or answer what they are told; a Node http server in front of a Fetch API handler.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { loadConfig } from '../../pipeline/config.ts';
import { silentLogger } from '../../pipeline/log.ts';
import { startServer, type RunningServer } from '../../api/server.ts';
import { createAccount } from '../../api/accounts.ts';
import { tempDataDir } from './temp.ts';
import { assessingServiceEnv, call, clearPerson, newSession, poll, submitSandbox, type SandboxFields } from './identity.ts';
import { freePort } from './free-port.ts';

/** A real OFAC listing: an ETH address of SDN 27307 (address-lists-2024-09-27). */
export const listedEth = '0x098B716B8Aaf21512996dC57EB0615e2383E2f96';

export interface GateService {
  server: RunningServer;
  url: string;
  keys: { free: string; starter: string; pro: string };
  /** The service's clock runs with the real one, shifted by offsetMs (tests move it, e.g. past a token's expiry). */
  clock: { offsetMs: number };
  /** A distinct client address per call (the service limits keyless routes per address). */
  client(): Record<string, string>;
}

/** The service for one test file, closed after it. Fields are filled in beforeAll, after `prepare(dataDir)` (e.g. an import). */
export function gateService(label: string, prepare?: (dataDir: string) => Promise<void>): GateService {
  const dataDir = tempDataDir(label);
  let ip = 0;
  const service = { clock: { offsetMs: 0 }, client: () => ({ 'X-Forwarded-For': `198.51.100.${(++ip % 250) + 1}` }) } as Partial<GateService> as GateService;
  beforeAll(async () => {
    await prepare?.(dataDir);
    const config = loadConfig(assessingServiceEnv(dataDir));
    service.server = await startServer(config, silentLogger, { now: () => new Date(Date.now() + service.clock.offsetMs) });
    service.url = service.server.url;
    await (await service.server.jobs.run('refresh-sanctions-list', {})).done;
    service.keys = {
      free: (await createAccount(service.server.store, { plan: 'free', name: 'Free Shop' }, service.server.keys)).api_key,
      starter: (await createAccount(service.server.store, { plan: 'starter', name: 'Starter Shop' }, service.server.keys)).api_key,
      // A plan with assess and sessions. Enterprise's 100 a second, not pro's 20: the gate's calls of
      // a whole test file (assess, sessions, fire-and-forget captures) can pass 20 in one second.
      pro: (await createAccount(service.server.store, { plan: 'enterprise', name: 'Pro Shop' }, service.server.keys)).api_key,
    };
  });
  afterAll(() => service.server?.close());
  return service;
}

export interface RecordedCall {
  method: string;
  path: string;
  body: any;
}

/**
 * A fetch that records each call the gate makes (method, path, JSON body) and passes it on, to
 * `reroute(url)` when given (e.g. capture to a server that never answers).
 */
export function countingFetch(reroute?: (url: URL) => string | undefined): { fetch: typeof globalThis.fetch; calls: RecordedCall[]; count(path: string): number } {
  const calls: RecordedCall[] = [];
  const counted: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    calls.push({ method: init?.method ?? 'GET', path: url.pathname, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
    return fetch(reroute?.(url) ?? url, init);
  };
  return { fetch: counted, calls, count: (path) => calls.filter((c) => c.path === path).length };
}

export function freshWallet(): string {
  return privateKeyToAccount(generatePrivateKey()).address;
}

/**
 * A session verified on the sandbox page as `person`: its operator token (good at every merchant).
 * The session is a merchant's of its own, so that logins do not spend the pro merchant's rate limit.
 */
export async function operatorLogin(service: GateService, person: SandboxFields = clearPerson): Promise<string> {
  // The verify page and the poll are limited per client address: one of its own per login.
  const headers = service.client();
  const merchant = await createAccount(service.server.store, { plan: 'pro', name: 'Login Shop' }, service.server.keys);
  const session = await newSession(service.url, merchant.api_key);
  await submitSandbox(session.verify_url, person, headers);
  const polled = await poll(session.poll_url, session.poll_secret, headers);
  if (polled.body.status !== 'verified') throw new Error(`the session is ${polled.body.status}, not verified`);
  return polled.body.operator_token;
}

/** Ties `wallet` to the operator of `operatorToken` through the service's capture (spec 4.8). */
export async function captureWallet(service: GateService, operatorToken: string, wallet: string): Promise<void> {
  const captured = await call(service.url, 'POST', '/v1/credentials/wallets', { key: service.keys.pro, body: { operator_token: operatorToken, wallet_address: wallet, network: 'evm' } });
  if (captured.status !== 200) throw new Error(`capture answered ${captured.status}: ${JSON.stringify(captured.body)}`);
}

/** A server that takes requests and never answers; `hits` counts them. Closed after the file. */
export async function silentServer(): Promise<{ url: string; hits: string[] }> {
  const hits: string[] = [];
  const server = http.createServer((req) => {
    hits.push(`${req.method} ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

/** A server that answers every request with `status` and a JSON error of `code`. */
export async function answeringServer(status: number, code: string): Promise<string> {
  return jsonServer(status, { error: { code, message: `always ${status}` } });
}

/** A server that answers every request with `status` and `answer` as JSON. */
export async function jsonServer(status: number, answer: unknown): Promise<string> {
  const server = http.createServer((_req, res) => {
    const body = JSON.stringify(answer);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An address where nothing listens: a stopped service (connection refused). */
export async function stoppedServiceUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

/**
 * A Node http server in front of a Fetch API handler, as a worker or Next.js would run it: the
 * request made a `Request` (method, URL, headers, body), the `Response` written back.
 */
export async function serveFetchHandler(handler: (request: Request) => Promise<Response>): Promise<string> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && chunks.length > 0;
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined });
    const response = await handler(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
