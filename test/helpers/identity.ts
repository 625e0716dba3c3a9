// Verification sessions over HTTP, as an agent and a person on the verify page use them.
import { fileURLToPath } from 'node:url';
import { addressListsDir } from './ofac-data.ts';

export interface CreatedSession {
  session_id: string;
  poll_secret: string;
  verify_url: string;
  poll_url: string;
  expires_at: string;
  [field: string]: unknown;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** The tiny SDN list (17 real entries with names and alternates) the project ships for the demo, for name screening. */
export const sdnTinyCsv = fileURLToPath(new URL('../../devnet/fixtures/ofac-sdn-tiny/sdn.csv', import.meta.url));

/**
 * The settings of an assessing service under test: behind one proxy (each test client its own
 * X-Forwarded-For), the real OFAC address lists and the tiny SDN names, no scheduled scoring.
 */
export function assessingServiceEnv(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    PORT: '0',
    TRUST_PROXY_HOPS: '1',
    SANCTIONS_LIST_SOURCE: addressListsDir,
    SANCTIONS_NAMES_SOURCE: sdnTinyCsv,
    SCORE_INTERVAL_SECONDS: '3600',
    SCORE_FULL_INTERVAL_SECONDS: '0',
  };
}

export async function createSession(baseUrl: string, apiKey: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${baseUrl}/v1/sessions`, {
    method: 'POST',
    headers: { 'X-API-Key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

export async function newSession(baseUrl: string, apiKey: string, body: unknown = {}): Promise<CreatedSession> {
  const created = await createSession(baseUrl, apiKey, body);
  if (created.status !== 200) throw new Error(`POST /v1/sessions answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body as CreatedSession;
}

export async function poll(pollUrl: string, secret: string | undefined, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(pollUrl, { headers: { ...(secret === undefined ? {} : { 'X-Poll-Secret': secret }), ...headers } });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

export interface SandboxFields {
  outcome: 'verified' | 'failed';
  jurisdiction?: string;
  age?: string;
  name?: string;
  birth_year?: string;
}

/** What the sandbox form posts; the answer is not followed (303 back to the page). */
export async function submitSandbox(verifyUrl: string, fields: SandboxFields, headers: Record<string, string> = {}): Promise<{ status: number; location: string | null; text: string }> {
  const res = await fetch(verifyUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(Object.entries(fields).filter(([, v]) => v !== undefined) as [string, string][]).toString(),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

/** A verified outcome of an ordinary person (no listing comes near the name). */
export const clearPerson: SandboxFields = { outcome: 'verified', jurisdiction: 'US', age: '21+', name: 'Margaret Whitfield' };

/** A JSON request with an API key (or none), its answer parsed. */
export async function call(baseUrl: string, method: string, path: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(options.key ? { 'X-API-Key': options.key } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/**
 * A session of `apiKey` verified on the sandbox page as `person` and polled once: its operator
 * token and refresh token (the client's login).
 */
export async function verifiedLogin(baseUrl: string, apiKey: string, person: SandboxFields = clearPerson, headers: Record<string, string> = {}): Promise<{ operatorToken: string; refreshToken: string; session: CreatedSession }> {
  const session = await newSession(baseUrl, apiKey);
  await submitSandbox(session.verify_url, person);
  const polled = await poll(session.poll_url, session.poll_secret, headers);
  if (polled.body.status !== 'verified') throw new Error(`the session is ${polled.body.status}, not verified`);
  return { operatorToken: polled.body.operator_token, refreshToken: polled.body.refresh_token, session };
}

/** An account claims a fresh EVM wallet over HTTP (challenge, personal_sign, claim); its address. */
export async function claimFreshWallet(baseUrl: string, apiKey: string): Promise<string> {
  const { generatePrivateKey, privateKeyToAccount } = await import('viem/accounts');
  const wallet = privateKeyToAccount(generatePrivateKey());
  const issued = await call(baseUrl, 'POST', '/v1/wallets/challenge', { key: apiKey, body: { address: wallet.address, network: 'evm' } });
  if (issued.status !== 200) throw new Error(`challenge answered ${issued.status}: ${JSON.stringify(issued.body)}`);
  const claimed = await call(baseUrl, 'POST', '/v1/wallets/claim', { key: apiKey, body: { message: issued.body.message, signature: await wallet.signMessage({ message: issued.body.message }) } });
  if (claimed.status !== 200) throw new Error(`claim answered ${claimed.status}: ${JSON.stringify(claimed.body)}`);
  return wallet.address.toLowerCase();
}
