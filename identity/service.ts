// The identity half as the API and the CLI use it: one object holding its dependencies (the store,
// the clock, the KYC provider, the name screening, the service's public address), with one method
// per thing a route or command does. Plain functions over the store underneath; no Koa here.
import type { Store } from '../pipeline/store/store.ts';
import type { Logger } from '../pipeline/log.ts';
import type { KycProvider, KycResult } from './kyc/provider.ts';
import type { NameScreening } from './screening.ts';
import { completeVerification } from './verification.ts';
import { createdAnswer, pollAnswer, sessionUrls } from './session-answers.ts';
import {
  authenticatePoll,
  consumeVerified,
  createSession,
  readSession,
  reviewFlagged,
  SessionStateError,
  startAttempt,
  statusAt,
  type Session,
} from './sessions.ts';

export interface IdentityDeps {
  store: Store;
  log: Logger;
  provider: KycProvider;
  screening: NameScreening;
  /** The service's own public address (PUBLIC_BASE_URL): verify_url, poll_url, agent_memory. */
  serviceBaseUrl: () => string;
  supportEmail: () => string;
  freshnessDays: number;
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

  /** POST /v1/sessions: a pending session for an agent of `accountId`, with its secrets (shown once). */
  async createAgentSession(accountId: string, input: { context: string | null; productName: string | null }): Promise<Record<string, unknown>> {
    const { session, pollSecret } = await createSession(this.deps.store, {
      accountId,
      purpose: 'agent',
      context: input.context,
      productName: input.productName,
      kycProvider: this.deps.provider.name,
      now: this.now(),
    });
    return createdAnswer(session, pollSecret, this.deps.serviceBaseUrl());
  }

  /**
   * GET /v1/sessions/{id}: the poll answer, or null when the session is unknown or the secret wrong
   * (one answer for both). The poll that finds the session verified delivers its token.
   */
  async poll(id: string, secret: string): Promise<{ body: Record<string, unknown>; session: Session } | null> {
    const session = await authenticatePoll(this.deps.store, id, secret);
    if (!session) return null;
    const now = this.now();
    if (statusAt(session, now) !== 'verified') return { body: pollAnswer(session, now, this.deps.supportEmail()), session };
    const consumed = await consumeVerified(this.deps.store, id, now);
    if (consumed.kind === 'delivered') return { body: pollAnswer(consumed.session, now, this.deps.supportEmail(), consumed.token), session: consumed.session };
    return { body: pollAnswer(consumed.session, now, this.deps.supportEmail()), session: consumed.session };
  }

  /** The session the verify page shows, with its status now; null when there is none. */
  async pageSession(id: string): Promise<{ session: Session; status: ReturnType<typeof statusAt>; now: Date } | null> {
    const session = await readSession(this.deps.store, id);
    if (!session) return null;
    const now = this.now();
    return { session, status: statusAt(session, now), now };
  }

  /** The sandbox form's result: an attempt started and its outcome recorded. */
  async submitSandboxResult(id: string, result: KycResult): Promise<Session> {
    if (this.deps.provider.flow !== 'sandbox') throw new SessionStateError('pending', 'this service does not use the sandbox provider');
    await startAttempt(this.deps.store, id, null, this.now());
    return completeVerification(this.completionDeps(), id, result, this.now());
  }

  /** A hosted vendor's flow for the session: an attempt started, and where to send the user. */
  async startHosted(id: string): Promise<string> {
    const { provider } = this.deps;
    if (provider.flow !== 'hosted') throw new SessionStateError('pending', 'this service uses the sandbox provider');
    const page = await this.pageSession(id);
    if (!page) throw new SessionStateError('expired', 'no such session');
    if (page.status !== 'pending' && page.status !== 'failed') throw new SessionStateError(page.status, `the session is ${page.status}`);
    // The provider reuses the vendor's open session on a reload while pending, and replaces (and
    // cancels) a failed one on a retry.
    const returnUrl = sessionUrls(this.deps.serviceBaseUrl(), id).verifyUrl;
    const started = await provider.start({ id, providerRef: page.session.providerRef, returnUrl });
    await startAttempt(this.deps.store, id, started.providerRef, this.now());
    return started.url;
  }

  /**
   * A vendor webhook: verified by the provider (signature, replay window) before anything is read,
   * applied once per event id, only to the session's current pending attempt; anything else
   * (a redelivery, a replay, a stale attempt) is acknowledged and changes nothing.
   */
  async receiveWebhook(rawBody: Buffer, signature: string | undefined): Promise<WebhookOutcome> {
    const { provider, store, log } = this.deps;
    if (provider.flow !== 'hosted') return { kind: 'ignored', reason: 'no hosted KYC provider is configured' };
    const delivery = await provider.receiveWebhook(rawBody, signature);
    if (delivery.kind === 'ignored') return { kind: 'ignored', reason: `event ${delivery.type} carries no result` };
    try {
      const session = await completeVerification(this.completionDeps(), delivery.sessionId, delivery.result, this.now(), {
        provider: provider.name,
        eventId: delivery.eventId,
        providerRef: delivery.providerRef,
      });
      log.info('verification result applied', { session: session.id, status: session.stored, event: delivery.eventId });
      return { kind: 'applied', sessionId: session.id, status: session.stored };
    } catch (err) {
      if (!(err instanceof SessionStateError)) throw err;
      log.warn('verification result not applied', { session: delivery.sessionId, event: delivery.eventId, reason: err.message });
      return { kind: 'ignored', reason: err.message };
    }
  }

  /** `reputation operators review`: clears or confirms a flagged session. */
  review(sessionId: string, decision: 'cleared' | 'confirmed'): Promise<Session> {
    return reviewFlagged(this.deps.store, sessionId, decision, this.now());
  }

  private completionDeps() {
    return { store: this.deps.store, screening: this.deps.screening, kycProvider: this.deps.provider.name };
  }
}
