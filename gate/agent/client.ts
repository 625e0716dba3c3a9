// The buyer agent's fetch: attaches an identity header in the order of spec 5.6 and handles every
// denial of gate/CONTRACT.md, so the caller sees the merchant's answer or one AgentError.
//
// Identity header, first that applies: a header the caller passed (`X-Operator-Token` or
// `X-Wallet-Address`), then the stored operator token (unless skipStoredToken; an expired one is
// first exchanged with its refresh token), then `X-Wallet-Address` of the keystore.
//
// Composition with a paying fetch: this client goes outside, the paying fetch inside
// (`createAgentClient({ fetch: wrapFetchWithPayment(fetch, x402) })`). Every retry the client makes
// is then a new request through the paying fetch, which answers the merchant's 402 with a fresh
// payment; the client itself never pays, never sees a 402 it must act on, and never resends a
// payment header (x402's wrapper refuses a request that already carries one).
//
// The identity service is only ever the one a denial's poll_url (and verify_url, on the same
// service) names, or the one a stored token came from: never anything of a merchant's free text.
// Tokens of a service are sent only to that service (refresh) and to merchants (as the header).
import qrcode from 'qrcode-terminal';
import { openCredentialStore, type CredentialStore, type StoredCredential } from './credential-store.ts';
import { denialSession, readDenial, type Denial, type DenialSession } from './denials.ts';
import { operatorTokenHeader, walletAddressHeader } from '../headers.ts';
import { pollSecretHeader } from '../instructions.ts';
import { isPlainObject } from '../json.ts';

export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface AgentClientOptions {
  /** Path of the credential store (a JSON file, 0600). */
  credentialStore: string;
  /** The chosen keystore's wallet address, sent as X-Wallet-Address when no token applies. */
  walletAddress?: string;
  /** Never present (or refresh) the stored operator token; a new one from a verification is still stored. */
  skipStoredToken?: boolean;
  /** Shows the verify URL to the person who operates the agent; `qr` is the URL as a terminal QR code. */
  onVerifyUrl?: (url: string, qr: string) => void;
  /** One line of progress: polling, backing off, refreshing. */
  onProgress?: (line: string) => void;
  /** The fetch that carries every request (merchant, poll, refresh); e.g. a paying fetch. */
  fetch?: FetchLike;
  sleep?: (ms: number) => Promise<void>;
  now?: () => Date;
  /** How long to keep retrying a merchant whose identity check is down (503 retry_with_backoff); 5 minutes. */
  maxWaitMs?: number;
}

export interface AgentClient {
  fetch: FetchLike;
  readonly store: CredentialStore;
}

/** Why the client stopped: the denial's code (or the client's own), reasons and what to tell the user. */
export class AgentError extends Error {
  override name = 'AgentError';
  readonly code: string;
  readonly status: number | null;
  readonly reasons: string[];
  readonly userMessage: string | null;
  readonly supportEmail: string | null;
  readonly supportSubject: string | null;
  /** The denial's `error` object or the poll answer that stopped the client. */
  readonly details: Record<string, unknown> | null;

  constructor(
    code: string,
    message: string,
    extra: { status?: number | null; reasons?: string[]; userMessage?: string | null; supportEmail?: string | null; supportSubject?: string | null; details?: Record<string, unknown> | null } = {},
  ) {
    super(message);
    this.code = code;
    this.status = extra.status ?? null;
    this.reasons = extra.reasons ?? [];
    this.userMessage = extra.userMessage ?? null;
    this.supportEmail = extra.supportEmail ?? null;
    this.supportSubject = extra.supportSubject ?? null;
    this.details = extra.details ?? null;
  }
}

/** Backoff on 503 retry_with_backoff: 5 s, 10 s, 20 s, then 30 s each, until maxWaitMs. */
export const backoffBaseMs = 5_000;
export const backoffCapMs = 30_000;
export const defaultMaxWaitMs = 5 * 60_000;
export const backoffDelayMs = (attempt: number): number => Math.min(backoffBaseMs * 2 ** attempt, backoffCapMs);

const defaultPollSeconds = 5;
/** A token this close to its expiry is treated as expired (clock skew, the request's own time). */
const expirySkewMs = 30_000;
/** Denials handled in one call (besides the 503 backoff, bounded by time): a loop guard. */
const maxDenialsPerCall = 8;
/** A session lives an hour (spec 2.3); polling stops a few minutes after that whatever the answers. */
const maxPollMs = 65 * 60_000;

type Identity =
  | { kind: 'caller'; header: 'token' | 'wallet' }
  | { kind: 'token'; credential: StoredCredential }
  | { kind: 'wallet'; address: string }
  | { kind: 'none' };

interface Prepared {
  url: string;
  merchant: string;
  headers: Headers;
  body: Uint8Array | undefined;
  init: RequestInit;
}

interface CallState {
  tried: Set<'caller' | 'token' | 'wallet' | 'none'>;
  denials: number;
  verifications: number;
  backoffAttempt: number;
  backoffWaitedMs: number;
  refreshed: Set<string>;
}

export function createAgentClient(options: AgentClientOptions): AgentClient {
  const store = openCredentialStore(options.credentialStore);
  const baseFetch: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? (() => new Date());
  const maxWaitMs = options.maxWaitMs ?? defaultMaxWaitMs;
  const progress = options.onProgress ?? (() => {});
  const showVerifyUrl = options.onVerifyUrl ?? ((url: string) => progress(`verify your identity at ${url}`));
  const wallet = options.walletAddress === undefined ? null : normaliseWallet(options.walletAddress);
  const skipStored = options.skipStoredToken === true;

  const expired = (at: string | null): boolean => at !== null && Date.parse(at) - now().getTime() < expirySkewMs;

  /** Exchanges a refresh token at its own service; the new pair is stored before it is used. */
  async function refresh(credential: StoredCredential, merchant: string | undefined, state?: CallState): Promise<StoredCredential | null> {
    if (credential.refreshToken === null || expired(credential.refreshTokenExpiresAt)) return null;
    if (state) {
      if (state.refreshed.has(credential.service)) return null;
      state.refreshed.add(credential.service);
    }
    progress(`operator token of ${credential.service} expired; exchanging the refresh token`);
    let res: Response;
    try {
      res = await baseFetch(`${credential.service}/v1/tokens/refresh`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: credential.refreshToken }),
      });
    } catch (err) {
      progress(`refresh at ${credential.service} failed (${(err as Error).message}); continuing without the stored token`);
      return null;
    }
    const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    if (res.status === 200 && body && typeof body.operator_token === 'string' && typeof body.refresh_token === 'string') {
      const renewed: StoredCredential = {
        service: credential.service,
        operatorToken: body.operator_token,
        operatorTokenExpiresAt: typeof body.expires_at === 'string' ? body.expires_at : ttlToExpiry(body.token_ttl_seconds),
        refreshToken: body.refresh_token,
        refreshTokenExpiresAt: typeof body.refresh_token_expires_at === 'string' ? body.refresh_token_expires_at : null,
        updatedAt: now().toISOString(),
      };
      await store.put(renewed, merchant);
      progress(`operator token refreshed (${prefixOf(renewed.operatorToken)}…, until ${renewed.operatorTokenExpiresAt ?? 'unknown'})`);
      return renewed;
    }
    if (res.status === 401) {
      // Spent, revoked or unknown: the login is over; a verification makes a new one.
      await dropIfStill(credential);
      progress(`the refresh token was refused (${errorCode(body) ?? res.status}); the stored login of ${credential.service} is removed`);
    } else {
      progress(`refresh at ${credential.service} answered ${res.status}; continuing without the stored token`);
    }
    return null;
  }

  const ttlToExpiry = (ttl: unknown): string | null => (typeof ttl === 'number' ? new Date(now().getTime() + ttl * 1000).toISOString() : null);

  /** Removes the stored login only when it is still the one this call used (another process may have renewed it). */
  async function dropIfStill(credential: StoredCredential): Promise<void> {
    const current = await store.get(credential.service);
    if (current && current.operatorToken === credential.operatorToken) await store.remove(credential.service);
  }

  /** The stored login for this merchant, refreshed when its token expired; null when none is usable. */
  async function storedToken(merchant: string, state?: CallState): Promise<StoredCredential | null> {
    if (skipStored) return null;
    const stored = await store.forMerchant(merchant);
    if (!stored) return null;
    if (!expired(stored.operatorTokenExpiresAt)) return stored;
    return refresh(stored, merchant, state);
  }

  async function initialIdentity(prepared: Prepared, state: CallState): Promise<Identity> {
    if (prepared.headers.has(operatorTokenHeader)) return { kind: 'caller', header: 'token' };
    if (prepared.headers.has(walletAddressHeader)) return { kind: 'caller', header: 'wallet' };
    const token = await storedToken(prepared.merchant, state);
    if (token) return { kind: 'token', credential: token };
    if (wallet !== null) return { kind: 'wallet', address: wallet };
    return { kind: 'none' };
  }

  function send(prepared: Prepared, identity: Identity): Promise<Response> {
    const headers = new Headers(prepared.headers);
    if (identity.kind !== 'caller') {
      headers.delete(operatorTokenHeader);
      headers.delete(walletAddressHeader);
    }
    if (identity.kind === 'token') headers.set(operatorTokenHeader, identity.credential.operatorToken);
    if (identity.kind === 'wallet') headers.set(walletAddressHeader, identity.address);
    return baseFetch(prepared.url, { ...prepared.init, headers, body: prepared.body });
  }

  /** Shows the verify URL, polls the session to its end, stores the token; the identity to retry with. */
  async function verify(session: DenialSession, prepared: Prepared, state: CallState, denial: Denial): Promise<Identity> {
    if (++state.verifications > 1) {
      throw new AgentError(denial.code, `the merchant asked for a verification again after one succeeded (${denial.message})`, fromDenial(denial));
    }
    showVerifyUrl(session.verifyUrl, renderQr(session.verifyUrl));
    const started = now().getTime();
    // The service says when the session expired; this is only a guard against polling forever, on
    // this machine's clock (which need not agree with the service's expires_at).
    const deadline = started + maxPollMs;
    let intervalSeconds = session.pollIntervalSeconds ?? defaultPollSeconds;
    for (;;) {
      if (now().getTime() > deadline) throw new AgentError('verification_expired', `no result after ${formatDuration(maxPollMs)} of polling (the session was to end at ${session.expiresAt ?? 'its expiry'})`);
      const elapsed = formatDuration(now().getTime() - started);
      let res: Response;
      try {
        res = await baseFetch(session.pollUrl, { headers: { [pollSecretHeader]: session.pollSecret } });
      } catch (err) {
        progress(`polling ${session.pollUrl} failed (${(err as Error).message}); trying again in ${intervalSeconds} s`);
        await sleep(intervalSeconds * 1000);
        continue;
      }
      const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
      if (res.status === 429 || res.status >= 500) {
        const wait = Math.max(intervalSeconds, Number(res.headers.get('retry-after')) || 0);
        progress(`the identity service answered the poll with ${res.status}; trying again in ${wait} s`);
        await sleep(wait * 1000);
        continue;
      }
      if (res.status !== 200 || body === null) {
        throw new AgentError(errorCode(body) ?? 'poll_refused', `the identity service refused the poll (${res.status}${errorCode(body) ? ` ${errorCode(body)}` : ''})`, { status: res.status });
      }
      const next = isPlainObject(body.next_steps) ? body.next_steps : {};
      const userMessage = typeof next.user_message === 'string' ? next.user_message : null;
      switch (body.status) {
        case 'pending': {
          intervalSeconds = positive(body.retry_after_seconds) ?? positive(next.poll_interval_seconds) ?? intervalSeconds;
          progress(`waiting for identity verification (pending, ${elapsed} elapsed); checking every ${intervalSeconds} s`);
          await sleep(intervalSeconds * 1000);
          continue;
        }
        case 'failed': {
          if (typeof next.retry_until === 'string') {
            intervalSeconds = positive(next.poll_interval_seconds) ?? intervalSeconds;
            progress(`verification did not succeed; the page takes another attempt until ${next.retry_until} (${elapsed} elapsed)`);
            await sleep(intervalSeconds * 1000);
            continue;
          }
          throw new AgentError('verification_failed', 'identity verification failed and takes no more attempts; retry the request to start a new one', { userMessage, details: body });
        }
        case 'expired':
          throw new AgentError('verification_expired', 'the verification session expired before it was completed; retry the request to start a new one', { userMessage, details: body });
        case 'consumed':
          throw new AgentError('token_consumed', 'the operator token of this verification was already delivered to another poll; it is not in this credential store', { userMessage, details: body });
        case 'flagged':
          throw new AgentError('contact_support', 'the verification needs a manual review: contact support', {
            userMessage,
            supportEmail: typeof next.support_email === 'string' ? next.support_email : null,
            supportSubject: typeof next.support_subject === 'string' ? next.support_subject : null,
            details: body,
          });
        case 'verified': {
          if (typeof body.operator_token !== 'string') throw new AgentError('poll_refused', 'the verified poll answer carries no operator_token');
          const credential: StoredCredential = {
            service: session.service,
            operatorToken: body.operator_token,
            operatorTokenExpiresAt: typeof body.token_expires_at === 'string' ? body.token_expires_at : ttlToExpiry(body.token_ttl_seconds),
            refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : null,
            refreshTokenExpiresAt: typeof body.refresh_token_expires_at === 'string' ? body.refresh_token_expires_at : null,
            updatedAt: now().toISOString(),
          };
          await store.put(credential, prepared.merchant);
          progress(`identity verified; operator token ${prefixOf(credential.operatorToken)}… stored in ${store.path}; retrying the request`);
          return { kind: 'token', credential };
        }
        default:
          throw new AgentError('poll_refused', `the identity service answered the poll with status ${JSON.stringify(body.status)}`);
      }
    }
  }

  /** The identity to try next on a missing identity: wallet, then stored token, then none. */
  async function probe(prepared: Prepared, state: CallState, order: ('wallet' | 'token' | 'none')[]): Promise<Identity | null> {
    for (const kind of order) {
      if (state.tried.has(kind)) continue;
      if (kind === 'wallet' && wallet !== null) return { kind: 'wallet', address: wallet };
      if (kind === 'token') {
        const token = await storedToken(prepared.merchant, state);
        if (token) return { kind: 'token', credential: token };
      }
      if (kind === 'none') return { kind: 'none' };
    }
    return null;
  }

  async function handle(denial: Denial, identity: Identity, prepared: Prepared, state: CallState): Promise<Identity> {
    switch (denial.code) {
      case 'identity_verification_required': {
        const session = denialSession(denial);
        if ('problem' in session) throw new AgentError(denial.code, session.problem, fromDenial(denial));
        return verify(session, prepared, state, denial);
      }
      case 'token_expired': {
        const session = denialSession(denial);
        const service = 'problem' in session ? (identity.kind === 'token' ? identity.credential.service : null) : session.service;
        if (!skipStored && service !== null) {
          const login = identity.kind === 'token' && identity.credential.service === service ? identity.credential : await store.get(service);
          const renewed = login ? await refresh(login, prepared.merchant, state) : null;
          if (renewed) return { kind: 'token', credential: renewed };
        }
        if ('problem' in session) {
          // No session to verify at (the gate could not mint one): the request goes again without
          // the token, as for invalid_credential, and the gate asks for a verification itself.
          if (identity.kind === 'token' || (identity.kind === 'caller' && identity.header === 'token')) {
            progress('the operator token expired and could not be renewed; retrying without it');
            const next = await probe(prepared, state, identity.kind === 'token' ? ['wallet', 'none'] : ['token', 'wallet', 'none']);
            if (next) return next;
          }
          throw new AgentError(denial.code, `the operator token expired and ${session.problem}`, fromDenial(denial));
        }
        return verify(session, prepared, state, denial);
      }
      case 'invalid_credential': {
        if (identity.kind === 'token') await dropIfStill(identity.credential);
        if (identity.kind === 'token' || (identity.kind === 'caller' && identity.header === 'token')) {
          progress(`the merchant does not know the operator token (invalid_credential)${identity.kind === 'token' ? '; removed it from the store' : ''}; retrying without it`);
          const next = await probe(prepared, state, identity.kind === 'token' ? ['wallet', 'none'] : ['token', 'wallet', 'none']);
          if (next) return next;
        }
        throw new AgentError(denial.code, denial.message, fromDenial(denial));
      }
      case 'wallet_signer_mismatch':
      case 'wallet_auth_requires_wallet_signing': {
        const usingWallet = identity.kind === 'wallet' || (identity.kind === 'caller' && identity.header === 'wallet');
        if (usingWallet && !state.tried.has('token')) {
          const token = await storedToken(prepared.merchant, state);
          if (token) {
            progress(`the merchant refused the wallet identity (${denial.code}); retrying with the stored operator token`);
            return { kind: 'token', credential: token };
          }
        }
        const signer = denial.code === 'wallet_signer_mismatch' && typeof denial.error.expected_signer === 'string' ? ` (expected signer ${denial.error.expected_signer}, the payment was signed by ${String(denial.error.actual_signer)})` : '';
        throw new AgentError(denial.code, `${denial.message}${signer}; no stored operator token to switch to: verify once to get one`, fromDenial(denial));
      }
      case 'missing_identity':
      case 'missing_wallet_address': {
        const next = await probe(prepared, state, denial.code === 'missing_wallet_address' ? ['wallet'] : ['wallet', 'token', 'none']);
        if (next) return next;
        const memory = isPlainObject(denial.error.agent_memory) ? denial.error.agent_memory : {};
        const endpoint = typeof memory.identity_check_endpoint === 'string' ? ` (its identity service: ${memory.identity_check_endpoint})` : '';
        const needs = denial.code === 'missing_wallet_address' ? 'a wallet address (--wallet)' : 'an identity: an operator token or a wallet address';
        throw new AgentError(denial.code, `the merchant needs ${needs} and offers no verification session${endpoint}`, fromDenial(denial));
      }
      case 'api_error': {
        const infra = typeof denial.error.infra_reason === 'string' ? denial.error.infra_reason : null;
        const retry = denial.action === 'retry_with_backoff' || (denial.action === null && infra !== 'quota_exceeded');
        if (!retry) {
          throw new AgentError(denial.code, `the merchant's identity check is misconfigured or over its quota (${denial.message}): do not retry; contact the merchant`, fromDenial(denial));
        }
        const delay = backoffDelayMs(state.backoffAttempt);
        if (state.backoffWaitedMs + delay > maxWaitMs) {
          throw new AgentError(denial.code, `the merchant's identity check stayed unavailable (${infra ?? 'api_error'}); gave up after ${formatDuration(state.backoffWaitedMs)} of retries`, fromDenial(denial));
        }
        progress(`the merchant's identity check is unavailable (${infra ?? 'api_error'}); retrying in ${delay / 1000} s`);
        await sleep(delay);
        state.backoffAttempt += 1;
        state.backoffWaitedMs += delay;
        return identity;
      }
      case 'wallet_not_trusted':
      case 'compliance_denied':
      case 'payment_required':
        throw new AgentError(denial.code, `${denial.message}${denial.reasons.length > 0 ? ` (${denial.reasons.join(', ')})` : ''}`, fromDenial(denial));
    }
  }

  async function agentFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const prepared = await prepare(input, init);
    const state: CallState = { tried: new Set(), denials: 0, verifications: 0, backoffAttempt: 0, backoffWaitedMs: 0, refreshed: new Set() };
    let identity = await initialIdentity(prepared, state);
    for (;;) {
      state.tried.add(identity.kind);
      const res = await send(prepared, identity);
      const denial = await readDenial(res);
      if (!denial) return res;
      await res.body?.cancel().catch(() => {});
      if (denial.code !== 'api_error' && ++state.denials > maxDenialsPerCall) {
        throw new AgentError(denial.code, `gave up after ${maxDenialsPerCall} denials in a row; the last: ${denial.message}`, fromDenial(denial));
      }
      identity = await handle(denial, identity, prepared, state);
    }
  }

  return { fetch: agentFetch, store };
}

/** The request as given, read once so that every retry sends the same method, headers and body. */
async function prepare(input: string | URL | Request, init?: RequestInit): Promise<Prepared> {
  const request = new Request(input, init);
  const body = request.body === null ? undefined : new Uint8Array(await request.arrayBuffer());
  const { headers: _headers, body: _body, ...rest } = init ?? {};
  const signal = init?.signal ?? (input instanceof Request ? input.signal : undefined);
  return {
    url: request.url,
    merchant: new URL(request.url).origin,
    headers: new Headers(request.headers),
    body,
    init: { ...rest, method: request.method, redirect: request.redirect, ...(signal ? { signal } : {}) },
  };
}

function fromDenial(denial: Denial): ConstructorParameters<typeof AgentError>[2] {
  return { status: denial.status, reasons: denial.reasons, userMessage: denial.userMessage, details: denial.error };
}

/** EVM addresses go lowercased (spec 5.4), Solana's as they are. */
function normaliseWallet(address: string): string {
  return /^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address;
}

/** The first 8 characters of a token (`opc_xxxx`): enough to tell tokens apart, never the secret. */
export function prefixOf(token: string): string {
  return token.slice(0, 8);
}

export function renderQr(url: string): string {
  let out = '';
  qrcode.generate(url, { small: true }, (text) => (out = text));
  return out;
}

const positive = (v: unknown): number | null => (typeof v === 'number' && v > 0 && v <= 3600 ? v : null);
const errorCode = (body: Record<string, unknown> | null): string | null => (body && isPlainObject(body.error) && typeof body.error.code === 'string' ? body.error.code : null);

function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}
