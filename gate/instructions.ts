// What a buyer agent is told to do, per denial (spec 7.2's agent_instructions.action), and the
// agent_memory block of a missing_identity denial (spec 2.5). Pure builders.
import { operatorTokenHeader, walletAddressHeader } from './headers.ts';
import type { AgentInstructions } from './types.ts';

export const pollSecretHeader = 'X-Poll-Secret';
export const pollIntervalSeconds = 5;
/** Spec 7.2: wait 5-30 s, exponential, surface after about 5 minutes. */
export const backoff = { initial_seconds: 5, max_seconds: 30, give_up_after_seconds: 300 };

export function probeIdentityThenSession(): AgentInstructions {
  return {
    action: 'probe_identity_then_session',
    steps: [
      `If you pay from a wallet whose payment carries its signature (x402 EIP-3009, Solana), retry with ${walletAddressHeader}: <that wallet>.`,
      `Else, if your credential store holds an operator token (opc_…), retry with ${operatorTokenHeader}: <token>.`,
      'Else retry without an identity header, or ask the identity service at agent_memory.identity_check_endpoint for a verification session, and follow its next_steps.',
    ],
    user_message: 'This merchant needs to know who is buying. Your agent will present your identity, or ask you to verify it once.',
  };
}

export function deliverVerifyUrlAndPoll(s: { verifyUrl: string; expiresAt?: string; refreshFirst?: boolean }): AgentInstructions {
  return {
    action: 'deliver_verify_url_and_poll',
    steps: [
      ...(s.refreshFirst ? ['If you hold a refresh token (prt_…), exchange it at refresh_url for a new operator token and retry with it; only if that fails, go on below.'] : []),
      'Give verify_url to your user (the person who operates you) and ask them to open it in a browser; it is safe to show.',
      `Poll poll_url every ${pollIntervalSeconds} seconds with the header ${pollSecretHeader}: <poll_secret>. Never put the poll secret in a URL, a log or a message to anyone.`,
      `When the poll answers status verified, keep operator_token (and refresh_token) in your credential store, not in long-term memory, and retry this request with ${operatorTokenHeader}: <operator_token>.`,
    ],
    user_message: `To continue, please verify your identity at ${s.verifyUrl} (a few minutes, with an identity document). The merchant learns only derived facts: verified or not, age bracket, country and a sanctions check.${s.expiresAt ? ` The link works until ${s.expiresAt}.` : ''}`,
    poll_interval_seconds: pollIntervalSeconds,
    poll_secret_header: pollSecretHeader,
  };
}

export function switchTokenOrRestartSession(): AgentInstructions {
  return {
    action: 'switch_token_or_restart_session',
    steps: [
      'The operator token you sent is not one the identity service issued; do not send it again.',
      `Retry with another operator token from your credential store, or without ${operatorTokenHeader} to start a new verification.`,
    ],
    user_message: 'Your saved identity token was not recognised; your agent will use another one or ask you to verify again.',
  };
}

/** token_expired when the merchant could not mint a session to go with it: refresh, else start a verification. */
export function refreshOrRestartSession(): AgentInstructions {
  return {
    action: 'switch_token_or_restart_session',
    steps: [
      'If you hold a refresh token (prt_…), exchange it at refresh_url for a new operator token and retry with it.',
      `Else retry without ${operatorTokenHeader} to start a new verification (this answer carries no session).`,
    ],
    user_message: 'Your saved identity token expired; your agent will renew it or ask you to verify again.',
  };
}

export function contactSupport(reasons: string[], who: 'the identity check' | 'the merchant'): AgentInstructions {
  return {
    action: 'contact_support',
    steps: [
      `${who === 'the merchant' ? 'The merchant' : 'The identity check'} refused this purchase for reasons verifying again cannot fix: ${reasons.join(', ')}.`,
      'Do not retry this request and do not start a verification session; tell your user.',
    ],
    user_message: "This purchase can't be completed for compliance reasons. Please contact the merchant's support if you think this is a mistake.",
  };
}

export function contactMerchant(why: string): AgentInstructions {
  return {
    action: 'contact_merchant',
    steps: [why, 'Do not retry now; tell your user to contact the merchant.'],
    user_message: 'The merchant cannot check identities right now; please contact them.',
  };
}

export function retryWithBackoff(): AgentInstructions {
  return {
    action: 'retry_with_backoff',
    steps: [
      `The merchant's identity check is unavailable for a moment. Retry after ${backoff.initial_seconds} s, doubling the wait up to ${backoff.max_seconds} s.`,
      `After about ${backoff.give_up_after_seconds / 60} minutes of failures, stop and tell your user.`,
    ],
    user_message: 'The merchant cannot check identities for a moment; retrying shortly.',
    backoff,
  };
}

export function switchToOperatorToken(): AgentInstructions {
  return {
    action: 'switch_to_operator_token',
    steps: [
      'This payment rail carries no wallet signature, so a wallet address cannot identify you here.',
      `Send your operator token in ${operatorTokenHeader} instead of ${walletAddressHeader} and retry.`,
    ],
    user_message: 'This merchant needs your operator token for this kind of payment.',
  };
}

export function resignOrSwitchToOperatorToken(actualSigner: string, expected: string | undefined): AgentInstructions {
  return {
    action: 'resign_or_switch_to_operator_token',
    steps: [
      `The payment was signed by ${actualSigner}, which does not belong to the identity you presented.`,
      expected ? `Sign the payment with ${expected} (or another of linked_wallets), or send your operator token in ${operatorTokenHeader}, and retry.` : `Send your operator token in ${operatorTokenHeader} and retry.`,
    ],
    user_message: 'The wallet that paid is not linked to your verified identity.',
  };
}

/**
 * A signer check's instructions as assess gives them (spec 2.4.2: a JSON string meant to be
 * spread into a 403); the gate's own when the string is missing or not an object with an action.
 */
export function signerInstructions(json: unknown, fallback: AgentInstructions): AgentInstructions {
  if (typeof json !== 'string') return fallback;
  try {
    const parsed = JSON.parse(json) as Partial<AgentInstructions>;
    if (typeof parsed?.action === 'string' && Array.isArray(parsed.steps) && typeof parsed.user_message === 'string') return parsed as AgentInstructions;
  } catch {
    // fall through
  }
  return fallback;
}

/** Spec 2.5: the pattern an agent with long-term memory may keep, and the secrets it must not. */
export function agentMemory(identityCheckEndpoint: string): Record<string, unknown> {
  return {
    pattern_summary:
      'Merchants gated by this identity service answer 403 identity_verification_required (or 401 token_expired) with a verify_url ' +
      `for your user and a poll_url for you; poll it with ${pollSecretHeader}, then retry with ${operatorTokenHeader}. ` +
      'One operator token works at every merchant that uses this service until it expires.',
    identity_check_endpoint: identityCheckEndpoint,
    identity_paths: {
      operator_token: { header: operatorTokenHeader, use: 'on any payment rail; required on rails without a wallet signature' },
      wallet: {
        header: walletAddressHeader,
        use: 'on rails whose payment carries a wallet signature (x402 EIP-3009, Solana); the wallet must resolve to the same operator as the payment signer',
      },
    },
    bootstrap: {
      on_denial: 'identity_verification_required',
      give_user: 'verify_url',
      poll: `${identityCheckEndpoint}/v1/sessions/{session_id}`,
      poll_secret_header: pollSecretHeader,
      poll_interval_seconds: pollIntervalSeconds,
    },
    do_not_persist_in_memory: ['operator_token', 'poll_secret', 'refresh_token'],
    persist_in_credential_store: ['operator_token', 'refresh_token'],
  };
}
