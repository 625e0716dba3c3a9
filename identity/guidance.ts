// What the agent is told to do next: the next_steps object of every session answer (spec 2.6)
// and the agent_memory block (2.5). Pure builders. The identity check endpoint is always this
// service's own public address, passed in by the server, never taken from a request or a
// merchant's settings: a merchant must not be able to point agents at a look-alike service.

export const pollIntervalSeconds = 5;
export const pollSecretHeader = 'X-Poll-Secret';
export const operatorTokenHeader = 'X-Operator-Token';

export type NextSteps = { action: string } & Record<string, unknown>;

export function deliverVerifyUrlAndPoll(s: { verifyUrl: string; expiresAt: Date }): NextSteps {
  return {
    action: 'deliver_verify_url_and_poll',
    poll_interval_seconds: pollIntervalSeconds,
    poll_secret_header: pollSecretHeader,
    steps: [
      'Give verify_url to your user (the person who operates you) and ask them to open it in a browser; it is safe to show.',
      `Poll poll_url every ${pollIntervalSeconds} seconds with the header ${pollSecretHeader}: <poll_secret>. Never put the poll secret in a URL, a log or a message to anyone.`,
      `When status is verified, keep operator_token and refresh_token in your credential store (not in long-term memory) and retry the merchant request with the header ${operatorTokenHeader}; when the operator token expires, exchange the refresh token at POST /v1/tokens/refresh for a new pair.`,
      'Stop polling when status is consumed or expired, or failed without retry_until, and follow that answer\'s next_steps; while failed has retry_until, your user may try again on the page: keep polling. When flagged, a person reviews the verification: poll again every few minutes, the token comes once it is cleared.',
    ],
    user_message: `To continue, please verify your identity at ${s.verifyUrl} (a few minutes, with an identity document). The merchant learns only derived facts: verified or not, age bracket, country and a sanctions check; never your name, address, birth date or document. The link works until ${s.expiresAt.toISOString()}.`,
  };
}

export function continuePolling(): NextSteps {
  return {
    action: 'continue_polling',
    poll_interval_seconds: pollIntervalSeconds,
    eta_message: 'Waiting for your user to finish on the verify page; it usually takes two to five minutes.',
  };
}

export function retryWithOperatorToken(): NextSteps {
  return {
    action: 'retry_merchant_request_with_operator_token',
    header_name: operatorTokenHeader,
    user_message: 'Identity verified. Retrying the request with your new operator token.',
  };
}

/** Credential creation before the account holder verified (spec 4.5's 409). */
export function completeKycThenRetry(s: { verifyUrl: string; expiresAt: Date }): NextSteps {
  return {
    action: 'complete_kyc_then_retry',
    user_message: `Verify your identity at ${s.verifyUrl} (a few minutes, with an identity document), then create the credential again. The link works until ${s.expiresAt.toISOString()}.`,
  };
}

export function useStoredOperatorToken(): NextSteps {
  return {
    action: 'use_stored_operator_token',
    header_name: operatorTokenHeader,
    user_message: 'The operator token of this session was already delivered: use the one you stored. If it was lost, start a new session.',
  };
}

export function createNewSession(): NextSteps {
  return {
    action: 'create_new_session',
    user_message: 'This verification link has expired. Retry the merchant request to get a new one.',
  };
}

/** Failed: the user may try again on the same page until `retryUntil` (null: no retry left). */
export function verificationFailed(retryUntil: Date | null): NextSteps {
  return {
    action: 'verification_failed',
    user_message:
      retryUntil === null
        ? 'Identity verification did not succeed. Retry the merchant request to start a new verification.'
        : `Identity verification did not succeed. You can try again on the same verify page until ${retryUntil.toISOString()}.`,
    ...(retryUntil === null ? {} : { retry_until: retryUntil.toISOString(), poll_interval_seconds: pollIntervalSeconds }),
  };
}

/** Flagged: a person reviews; if they clear it, the next poll delivers the token (for 24 hours). */
export const reviewPollIntervalSeconds = 300;

export function contactSupport(s: { sessionId: string; supportEmail: string }): NextSteps {
  return {
    action: 'contact_support',
    support_email: s.supportEmail,
    support_subject: `Identity review for verification session ${s.sessionId}`,
    user_message:
      'Your verification needs a manual review before any access can be granted. Please contact support with the subject given; do not start new sessions meanwhile.',
    poll_interval_seconds: reviewPollIntervalSeconds,
  };
}

/** Spec 2.5: the pattern an agent with long-term memory may keep, and the secrets it must not. */
export function agentMemory(serviceBaseUrl: string): Record<string, unknown> {
  return {
    pattern_summary:
      'Merchants gated by this identity service answer 403 identity_verification_required (or 401 token_expired) with a verify_url ' +
      `for your user and a poll_url for you; poll it with ${pollSecretHeader}, then retry with ${operatorTokenHeader}. ` +
      'One operator token works at every merchant that uses this service until it expires.',
    identity_check_endpoint: serviceBaseUrl,
    identity_paths: {
      operator_token: { header: operatorTokenHeader, use: 'on any payment rail; required on rails without a wallet signature' },
      wallet: {
        header: 'X-Wallet-Address',
        use: 'on rails whose payment carries a wallet signature (x402 EIP-3009, Solana); the wallet must resolve to the same operator as the payment signer',
      },
    },
    bootstrap: {
      on_denial: 'identity_verification_required',
      give_user: 'verify_url',
      poll: `${serviceBaseUrl}/v1/sessions/{session_id}`,
      poll_secret_header: pollSecretHeader,
      poll_interval_seconds: pollIntervalSeconds,
    },
    do_not_persist_in_memory: ['operator_token', 'poll_secret', 'refresh_token'],
    persist_in_credential_store: ['operator_token', 'refresh_token'],
  };
}
