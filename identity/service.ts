// The identity half as the API and the CLI use it: one object holding its dependencies (the store,
// the clock, the KYC provider, the name screening, the service's public address), with one method
// per thing a route or command does. Plain functions over the store underneath; no Koa here.
import { DeferredSessions } from './deferred-sessions.ts';
import type { Store } from '../pipeline/store/store.ts';
import type { Logger } from '../pipeline/log.ts';
import { NoAttemptsLeftError, type KycProvider, type KycResult } from './kyc/provider.ts';
import type { NameScreening } from './screening.ts';
import type { IdentityState } from './state.ts';
import { completeVerification } from './verification.ts';
import { createCredential, listCredentials, revokeCredential, type CredentialCreation, type CredentialRequest } from './credentials.ts';
import { captureWallet, type CaptureResult } from './wallets/captures.ts';
import type { Exchange } from './refresh.ts';
import { assess, type AssessOutcome, type AssessRequest } from './assess/assess.ts';
import type { AuditTrail } from './assess/audit.ts';
import type { SanctionsLookup } from '../pipeline/sanctions/lookup.ts';
import { createdAnswer, pollAnswer, sessionUrls } from './session-answers.ts';
import {
  authenticatePoll,
  consumeVerified,
  createSession,
  mintedSession,
  readSession,
  reviewFlagged,
  SessionStateError,
  UnknownSessionError,
  canStart,
  maxAttempts,
  startAttempt,
  statusAt,
  type Session,
} from './sessions.ts';
import { claimWallet, issueChallenge, type ChallengeResult } from './wallets/claims.ts';
import type { EvmChainClients } from './wallets/siwe.ts';
import type { VerificationLevel, WalletNetwork } from './wallets/directory.ts';

export interface IdentityDeps {
  store: Store;
  /** The owner's memory of tokens, refresh families and wallets (identity/state.ts). */
  state: IdentityState;
  log: Logger;
  provider: KycProvider;
  screening: NameScreening;
  /** The service's own public address (PUBLIC_BASE_URL): verify_url, poll_url, agent_memory. */
  serviceBaseUrl: () => string;
  supportEmail: () => string;
  freshnessDays: number;
  /** A public client per configured EVM chain id: wallet claims verify contract wallets on them. */
  evmChains?: EvmChainClients;
  /** The digital-currency address list, for assess's signer check. */
  sanctions: SanctionsLookup;
  /** SANCTIONS_LIST_MAX_AGE_HOURS in seconds: older without a good refresh, the signer check is unavailable. */
  sanctionsMaxAgeSeconds: number;
  /** Where assess records its live decisions (identity/assess/audit.ts). */
  audit: AuditTrail;
  /** Sessions minted, written only once used (identity/deferred-sessions.ts). */
  deferred: DeferredSessions;
  /** Assess of an unknown wallet: a minimal entry and its scoring queued (spec 3.3); never awaited. */
  indexWallet?: (address: string, refresh: boolean) => void;
  now?: () => Date;
}

export type WebhookOutcome = { kind: 'applied'; sessionId: string; status: string } | { kind: 'ignored'; reason: string };

export class IdentityService {
  readonly now: () => Date;

  constructor(readonly deps: IdentityDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  get provider(): KycProvider {
    return this.deps.provider;
  }

  /**
   * POST /v1/sessions: a pending session for an agent of `accountId`, with its secrets (shown once).
   * With short labels it is minted, not written, until its page is used (a gate mints one for
   * every request without an identity): identity/deferred-sessions.ts.
   */
  async createAgentSession(accountId: string, input: { context: string | null; productName: string | null }): Promise<Record<string, unknown>> {
    const now = this.now();
    if (DeferredSessions.fits(input)) {
      const minted = this.deps.deferred.mint(accountId, now, input);
      return createdAnswer(mintedSession(minted, this.deps.deferred.kycProvider), minted.pollSecret, this.deps.serviceBaseUrl());
    }
    const { session, pollSecret } = await createSession(this.deps.store, {
      accountId,
      purpose: 'agent',
      context: input.context,
      productName: input.productName,
      kycProvider: this.deps.provider.name,
      now,
    });
    return createdAnswer(session, pollSecret, this.deps.serviceBaseUrl());
  }

  /**
   * GET /v1/sessions/{id}: the poll answer, or null when the session is unknown or the secret wrong
   * (one answer for both). The poll that finds the session verified delivers its token.
   */
  async poll(id: string, secret: string): Promise<{ body: Record<string, unknown>; session: Session } | null> {
    const session = await authenticatePoll(this.deps.store, id, secret, this.deps.deferred);
    if (!session) return null;
    const now = this.now();
    if (statusAt(session, now) !== 'verified') return { body: pollAnswer(session, now, this.deps.supportEmail()), session };
    const consumed = await consumeVerified(this.deps.store, this.deps.state, id, now);
    if (consumed.kind === 'delivered') return { body: pollAnswer(consumed.session, now, this.deps.supportEmail(), consumed), session: consumed.session };
    return { body: pollAnswer(consumed.session, now, this.deps.supportEmail()), session: consumed.session };
  }

  /** The session the verify page shows, with its status now; null when there is none. */
  async pageSession(id: string): Promise<{ session: Session; status: ReturnType<typeof statusAt>; now: Date } | null> {
    const session = await readSession(this.deps.store, id, this.deps.deferred, true);
    if (!session) return null;
    const now = this.now();
    return { session, status: statusAt(session, now), now };
  }

  /** The sandbox form's result: an attempt started and its outcome recorded. */
  async submitSandboxResult(id: string, result: KycResult): Promise<Session> {
    if (this.deps.provider.flow !== 'sandbox') throw new SessionStateError('pending', 'this service does not use the sandbox provider');
    await startAttempt(this.deps.store, id, null, this.now(), this.deps.deferred);
    return completeVerification(this.completionDeps(), id, result, this.now());
  }

  /** A hosted vendor's flow for the session: an attempt started, and where to send the user. */
  async startHosted(id: string): Promise<string> {
    const { provider } = this.deps;
    if (provider.flow !== 'hosted') throw new SessionStateError('pending', 'this service uses the sandbox provider');
    const page = await this.pageSession(id);
    if (!page) throw new UnknownSessionError(`no verification session ${id}`);
    const { session, now } = page;
    // Checked before the vendor is asked: a session with no attempt left creates nothing there.
    if (!canStart(session, now)) throw new SessionStateError(page.status, `the session is ${page.status}`);
    // The provider reuses the vendor's open session on a reload while pending, and replaces (and
    // cancels) a failed one on a retry.
    try {
      const started = await provider.start({
        id,
        providerRef: session.providerRef,
        returnUrl: sessionUrls(this.deps.serviceBaseUrl(), id).verifyUrl,
        attempt: session.attempts + 1,
        mayCreate: session.attempts < maxAttempts,
      });
      await startAttempt(this.deps.store, id, started.providerRef, this.now(), this.deps.deferred);
      return started.url;
    } catch (err) {
      if (err instanceof NoAttemptsLeftError) throw new SessionStateError(page.status, err.message);
      throw err;
    }
  }

  /**
   * A vendor webhook: verified by the provider (signature, replay window) before anything is read,
   * applied once per event id, only to the session's current pending attempt; anything else
   * (a redelivery, a replay, a stale attempt) is acknowledged and changes nothing.
   */
  async receiveWebhook(rawBody: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
    const { provider, log } = this.deps;
    if (provider.flow !== 'hosted') return { kind: 'ignored', reason: 'no hosted KYC provider is configured' };
    const delivery = await provider.receiveWebhook(rawBody, signature);
    if (delivery.kind === 'ignored') {
      if (delivery.reason) log.warn('webhook delivery not applied', { event: delivery.eventId, type: delivery.type, reason: delivery.reason });
      return { kind: 'ignored', reason: delivery.reason ?? `event ${delivery.type} carries no result` };
    }
    try {
      const session = await completeVerification(this.completionDeps(), delivery.sessionId, delivery.result, this.now(), {
        provider: provider.name,
        eventId: delivery.eventId,
        providerRef: delivery.providerRef,
      });
      log.info('verification result applied', { session: session.id, status: session.stored, event: delivery.eventId });
      return { kind: 'applied', sessionId: session.id, status: session.stored };
    } catch (err) {
      // Permanent: a session that moved on, a stale attempt, a replay, or a session this service
      // never had (another environment on the same Stripe account). Acknowledged, so not redelivered.
      if (!(err instanceof SessionStateError) && !(err instanceof UnknownSessionError)) throw err;
      log.warn('verification result not applied', { session: delivery.sessionId, event: delivery.eventId, reason: err.message });
      return { kind: 'ignored', reason: err.message };
    }
  }

  /** POST /v1/credentials for the account holder `accountId`. */
  createCredential(accountId: string, request: CredentialRequest): Promise<CredentialCreation> {
    return createCredential({ ...this.deps, kycProvider: this.deps.provider.name }, accountId, request, this.now());
  }

  listCredentials(accountId: string) {
    return listCredentials(this.deps, accountId, this.now());
  }

  revokeCredential(accountId: string, id: string): Promise<boolean> {
    return revokeCredential(this.deps, accountId, id, this.now());
  }

  /** POST /v1/credentials/wallets: a merchant reports the wallet that paid under an operator token. */
  captureWallet(merchantAccountId: string, capture: Parameters<typeof captureWallet>[2]): Promise<CaptureResult> {
    return captureWallet(this.deps, merchantAccountId, capture, this.now());
  }

  /** POST /v1/tokens/refresh: spends a refresh token for a fresh pair, in one writer unit. */
  exchangeRefreshToken(token: string): Promise<Exchange> {
    const now = this.now();
    return this.deps.store.write((tx) => this.deps.state.refresh.exchange(tx, token, now));
  }

  /** POST /v1/assess (spec 4.2): the decision for an identity under a merchant's policy. */
  assess(accountId: string, request: AssessRequest, requestId: string): Promise<AssessOutcome> {
    return assess({ ...this.deps, kycProvider: this.deps.provider.name }, accountId, request, { requestId, now: this.now() });
  }

  /** `reputation operators review`: clears or confirms a flagged session. */
  review(sessionId: string, decision: 'cleared' | 'confirmed'): Promise<Session> {
    return reviewFlagged(this.deps.store, this.deps.state, sessionId, decision, this.now());
  }

  /** POST /v1/wallets/challenge: a one-time message for `accountId` to sign with the wallet. */
  walletChallenge(accountId: string, input: { network: WalletNetwork; address: string; chainId: number | null }): Promise<ChallengeResult> {
    return issueChallenge(this.claimDeps(), accountId, input, this.now());
  }

  /**
   * POST /v1/wallets/claim: the signed challenge checked and the claim recorded, with the wallet's
   * verification level after it; a refusal as a result (identity/wallets/claims.ts).
   */
  async claimWallet(accountId: string, input: { message: string; signature: string }) {
    const result = await claimWallet(this.claimDeps(), accountId, input, this.now());
    if (result.kind !== 'claimed') return result;
    const level: VerificationLevel = this.deps.state.wallets.verificationLevel(result.address);
    return { ...result, level };
  }

  private claimDeps() {
    return { store: this.deps.store, state: this.deps.state, serviceBaseUrl: this.deps.serviceBaseUrl(), evmChains: this.deps.evmChains ?? new Map() };
  }

  private completionDeps() {
    return { store: this.deps.store, state: this.deps.state, screening: this.deps.screening, kycProvider: this.deps.provider.name };
  }
}
