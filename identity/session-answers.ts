// The bodies of the session answers (spec 2.3, 4.3, 4.4): the create answer with its secrets and
// agent_memory, and one poll answer per status with its next_steps (2.6). Pure.
import * as guidance from './guidance.ts';
import { retryUntil, statusAt, type Session, type SessionStatus } from './sessions.ts';
import { operatorTokenTtlSeconds, type IssuedToken } from './tokens.ts';
import type { IssuedRefresh } from './refresh.ts';

export interface SessionUrls {
  verifyUrl: string;
  pollUrl: string;
}

/** verify_url and poll_url on the service's own public address; the session id is all they carry. */
export function sessionUrls(serviceBaseUrl: string, sessionId: string): SessionUrls {
  return { verifyUrl: `${serviceBaseUrl}/verify/${sessionId}`, pollUrl: `${serviceBaseUrl}/v1/sessions/${sessionId}` };
}

export function createdAnswer(session: Session, pollSecret: string, serviceBaseUrl: string): Record<string, unknown> {
  const urls = sessionUrls(serviceBaseUrl, session.id);
  return {
    session_id: session.id,
    status: 'pending',
    ...testMark(session),
    poll_secret: pollSecret,
    verify_url: urls.verifyUrl,
    poll_url: urls.pollUrl,
    expires_at: session.expiresAt.toISOString(),
    next_steps: guidance.deliverVerifyUrlAndPoll({ verifyUrl: urls.verifyUrl, expiresAt: session.expiresAt }),
    agent_memory: guidance.agentMemory(serviceBaseUrl),
  };
}

/** The poll answer for `session` at `now`; the tokens only in the one answer that delivered them. */
export function pollAnswer(session: Session, now: Date, supportEmail: string, delivered?: { token: IssuedToken; refresh: IssuedRefresh }): Record<string, unknown> {
  const token = delivered?.token;
  const status: SessionStatus = token ? 'verified' : statusAt(session, now);
  const base = { session_id: session.id, status, ...testMark(session) };
  switch (status) {
    case 'pending':
      return { ...base, expires_at: session.expiresAt.toISOString(), retry_after_seconds: guidance.pollIntervalSeconds, next_steps: guidance.continuePolling() };
    case 'verified':
      // A verified session is only ever answered with its token: the poll that sees it verified consumes it.
      return {
        ...base,
        operator_token: token!.token,
        completed_at: session.completedAt!.toISOString(),
        token_ttl_seconds: operatorTokenTtlSeconds,
        token_expires_at: token!.expiresAt.toISOString(),
        refresh_token: delivered!.refresh.token,
        refresh_token_expires_at: delivered!.refresh.expiresAt.toISOString(),
        next_steps: guidance.retryWithOperatorToken(),
      };
    case 'consumed':
      return { ...base, completed_at: session.completedAt!.toISOString(), next_steps: guidance.useStoredOperatorToken() };
    case 'expired':
      return { ...base, expires_at: session.expiresAt.toISOString(), next_steps: guidance.createNewSession() };
    case 'failed': {
      const until = retryUntil(session, now);
      return { ...base, ...(session.failureCode ? { failure_code: session.failureCode } : {}), next_steps: guidance.verificationFailed(until) };
    }
    case 'flagged':
      return { ...base, next_steps: guidance.contactSupport({ sessionId: session.id, supportEmail }) };
  }
}

/** Sessions of the sandbox provider say so (no identity document was checked): `test: true`. */
function testMark(session: Session): { test?: true } {
  return session.kycProvider === 'sandbox' ? { test: true } : {};
}
