// The gate's denials (spec 7.2, gate/CONTRACT.md): one builder per code, each with its status,
// its fields inside `error` (spec 7.1) and its agent_instructions. Every denial is `no-store`:
// some carry a poll secret, and none may be cached by a proxy.
import { walletAddressHeader } from './headers.ts';
import {
  agentMemory,
  backoff,
  contactMerchant,
  contactSupport,
  deliverVerifyUrlAndPoll,
  pollIntervalSeconds,
  probeIdentityThenSession,
  refreshOrRestartSession,
  resignOrSwitchToOperatorToken,
  retryWithBackoff,
  signerInstructions,
  switchToOperatorToken,
  switchTokenOrRestartSession,
} from './instructions.ts';
import type { AgentInstructions, DenialCode, GateDenial, GatePass, InfraReason, Network } from './types.ts';

/** A verification session as the service hands it out (assess's verification_session, POST /v1/sessions, token_expired). */
export interface SessionFields {
  session_id: string;
  poll_secret: string;
  verify_url: string;
  poll_url: string;
  expires_at?: string;
  poll_interval_seconds?: number;
}

/** Rule 3's fields of a 402/403 body: which identity mode, and in wallet mode who must sign. */
export type ModeFields = Record<string, unknown>;

export function walletModeFields(wallet: { address: string; network: Network }, linked: string[] | undefined): ModeFields {
  const linkedWallets = linked && linked.length > 0 ? linked : [wallet.address];
  const others = linkedWallets.filter((w) => w !== wallet.address);
  return {
    identity_mode: 'wallet',
    required_signer: wallet.address,
    linked_wallets: linkedWallets,
    signer_constraint:
      `The payment must be signed by ${wallet.address}${others.length > 0 ? ' or another wallet in linked_wallets' : ''} (the wallet in ${walletAddressHeader}, ` +
      'or one linked to the same verified person); a payment without a wallet signature needs X-Operator-Token instead.',
  };
}

export const operatorTokenModeFields: ModeFields = { identity_mode: 'operator_token' };

/** Rule 3's fields for a pass, for a 402 the merchant's payment layer answers (e.g. x402's payment requirements). */
export function identityModeFields(pass: GatePass): ModeFields {
  if (pass.identityMode === 'wallet' && pass.walletAddress && pass.network) return walletModeFields({ address: pass.walletAddress, network: pass.network }, pass.linkedWallets);
  return pass.identityMode === 'operator_token' ? operatorTokenModeFields : {};
}

function denial(status: number, code: DenialCode, message: string, instructions: AgentInstructions, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): GateDenial {
  return { status, body: { error: { code, message, agent_instructions: instructions, ...extra } }, headers: { 'Cache-Control': 'no-store', ...headers } };
}

function sessionFields(session: SessionFields): Record<string, unknown> {
  return {
    verify_url: session.verify_url,
    session_id: session.session_id,
    poll_secret: session.poll_secret,
    poll_url: session.poll_url,
    ...(session.expires_at ? { expires_at: session.expires_at } : {}),
    poll_interval_seconds: session.poll_interval_seconds ?? pollIntervalSeconds,
  };
}

export function missingIdentity(identityCheckEndpoint: string, malformed?: string): GateDenial {
  return denial(
    403,
    'missing_identity',
    malformed === undefined
      ? 'this endpoint needs an identity: send X-Operator-Token or X-Wallet-Address'
      : `${walletAddressHeader} ${JSON.stringify(malformed)} is not a wallet address: send an EVM address (0x + 40 hex) or a Solana public key, or X-Operator-Token`,
    probeIdentityThenSession(),
    { agent_memory: agentMemory(identityCheckEndpoint) },
  );
}

export function identityVerificationRequired(session: SessionFields, reasons: string[], mode: ModeFields, malformed?: string): GateDenial {
  return denial(
    403,
    'identity_verification_required',
    malformed !== undefined
      ? `${walletAddressHeader} ${JSON.stringify(malformed)} is not a wallet address; to buy here, verify your identity at verify_url`
      : reasons.includes('kyc_pending')
        ? 'a verification of this identity is under way; finish it, or verify at verify_url'
        : 'this purchase needs a verified identity: verify at verify_url, then retry with the operator token',
    deliverVerifyUrlAndPoll({ verifyUrl: session.verify_url, expiresAt: session.expires_at }),
    { ...sessionFields(session), reasons, ...mode },
  );
}

/** Without a session when the gate could not mint one: the buyer may still refresh, or retry without the token. */
export function tokenExpired(session: SessionFields | null, refreshUrl: string): GateDenial {
  if (!session) {
    return denial(401, 'token_expired', 'the operator token expired or was revoked: refresh it at refresh_url, or retry without it to verify again', refreshOrRestartSession(), { refresh_url: refreshUrl });
  }
  return denial(
    401,
    'token_expired',
    'the operator token expired or was revoked: refresh it, or verify again at verify_url',
    deliverVerifyUrlAndPoll({ verifyUrl: session.verify_url, expiresAt: session.expires_at, refreshFirst: true }),
    { ...sessionFields(session), refresh_url: refreshUrl },
  );
}

export function invalidCredential(): GateDenial {
  return denial(401, 'invalid_credential', 'the operator token is not one the identity service issued', switchTokenOrRestartSession());
}

export interface MismatchFields {
  claimed_operator: string | null;
  signer_operator: string | null;
  expected_signer?: string;
  actual_signer?: string;
  linked_wallets?: string[];
  agent_instructions?: string;
}

export function walletSignerMismatch(match: MismatchFields, mode: ModeFields): GateDenial {
  const actual = match.actual_signer ?? 'another wallet';
  return denial(
    403,
    'wallet_signer_mismatch',
    `the payment was signed by ${actual}, which does not belong to the identity presented`,
    signerInstructions(match.agent_instructions, resignOrSwitchToOperatorToken(actual, match.expected_signer)),
    {
      ...mode,
      claimed_operator: match.claimed_operator,
      actual_signer_operator: match.signer_operator,
      expected_signer: match.expected_signer ?? null,
      actual_signer: match.actual_signer ?? null,
      linked_wallets: match.linked_wallets ?? (mode.linked_wallets as string[] | undefined) ?? [],
    },
  );
}

export function walletAuthRequiresWalletSigning(instructionsJson: unknown, mode: ModeFields): GateDenial {
  return denial(
    403,
    'wallet_auth_requires_wallet_signing',
    `this payment carries no wallet signature, so ${walletAddressHeader} cannot identify the buyer: send X-Operator-Token`,
    signerInstructions(instructionsJson, switchToOperatorToken()),
    mode,
  );
}

export function walletNotTrusted(reasons: string[], mode: ModeFields, extra: Record<string, unknown> = {}): GateDenial {
  return denial(403, 'wallet_not_trusted', `the identity check denied this buyer: ${reasons.join(', ')}`, contactSupport(reasons, 'the identity check'), { reasons, ...mode, ...extra });
}

/** The merchant's own refusal for reasons verifying cannot fix (spec 7.2 `compliance_denied`), e.g. a shipping destination. */
export function complianceDenied(reasons: string[], message = `the merchant cannot sell to this buyer: ${reasons.join(', ')}`): GateDenial {
  return denial(403, 'compliance_denied', message, contactSupport(reasons, 'the merchant'), { reasons });
}

export function paymentRequired(mode: ModeFields, what: string): GateDenial {
  return denial(
    403,
    'payment_required',
    `the merchant's plan with the identity service does not include ${what}`,
    contactMerchant(`The merchant's plan with the identity service does not include ${what}, so this endpoint cannot check identities.`),
    mode,
  );
}

/**
 * The service failed (429, 5xx, no answer, or it could not screen against the sanctions list): 503.
 * A 429 is the merchant's quota or rate, which the buyer retrying cannot help (contact_merchant);
 * anything else is transient (retry_with_backoff). The buyer gets no detail of the failure: that
 * goes to the merchant's onServiceProblem.
 */
export function apiError(infraReason: InfraReason): GateDenial {
  return infraReason === 'quota_exceeded'
    ? denial(503, 'api_error', "the merchant's identity check is over its limit with the identity service: contact the merchant", contactMerchant("The merchant's identity checks are over their limit."), { infra_reason: infraReason })
    : denial(
        503,
        'api_error',
        `the merchant's identity check is unavailable for a moment; retry in ${backoff.initial_seconds} to ${backoff.max_seconds} s`,
        retryWithBackoff(),
        { infra_reason: infraReason },
        { 'Retry-After': String(backoff.initial_seconds) },
      );
}

/**
 * The service refused the merchant's own call (a wrong API key, a cancelled account, a policy it
 * does not accept): 503 api_error, never fail-open, contact_merchant: only the merchant can fix it.
 */
export function misconfigured(): GateDenial {
  return denial(503, 'api_error', "the merchant's identity check is misconfigured: contact the merchant", contactMerchant("The merchant's identity check is misconfigured."), { infra_reason: 'api_error' });
}

export function missingWalletAddress(malformed?: string): GateDenial {
  return denial(
    403,
    'missing_wallet_address',
    malformed === undefined ? `this endpoint needs ${walletAddressHeader}` : `${walletAddressHeader} ${JSON.stringify(malformed)} is not a wallet address`,
    {
      ...probeIdentityThenSession(),
      steps: [`Retry with ${walletAddressHeader}: <the wallet you pay from> (EVM 0x + 40 hex, or a Solana public key).`],
      user_message: 'This merchant admits wallets with a good payment reputation; your agent must say which wallet it pays from.',
    },
  );
}
