// The gate's vocabulary, as plain types: what it reads from a request, what a pass gives the
// merchant, what a denial answers the buyer agent (gate/CONTRACT.md). Nothing here imports the
// service: the gate only speaks HTTP to it.

export type Network = 'evm' | 'solana';

/** The payment's signer, from the merchant's payment layer (x402: the EIP-3009 `from`). */
export interface Payment {
  /** The wallet that signed the payment; null: the rail carries no wallet signature (cards, shared payment tokens). */
  signer: string | null;
  network: Network;
  /** Sent with wallet capture as `idempotency_key` (x402: the authorization nonce). */
  idempotencyKey?: string;
}

/** A Fetch API `Headers`, or Node's / a framework's header record (any case of names). */
export type HeaderBag = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface RequestLike {
  headers: HeaderBag;
}

/** The merchant's policy, sent to assess as it is (spec 4.2). */
export interface Policy {
  require_kyc?: boolean;
  require_sanctions_clear?: boolean;
  min_age?: 18 | 21;
  blocked_jurisdictions?: string[];
  allowed_jurisdictions?: string[];
}

export type IdentityStatus = 'verified' | 'unverified' | 'anonymous';
/** `none`: no identity header (a fail-open pass, or a product without a gate). */
export type IdentityMode = 'operator_token' | 'wallet' | 'none';
export type InfraReason = 'api_error' | 'quota_exceeded' | 'network_timeout';

/** What a request that may go on gives the merchant (CONTRACT.md, "Pass state"). */
export interface GatePass {
  identityStatus: IdentityStatus;
  identityMode: IdentityMode;
  operatorToken?: string;
  walletAddress?: string;
  /** The wallet's network (wallet mode). */
  network?: Network;
  /** Wallet mode: the same person's wallets, any of which may sign (from assess). */
  linkedWallets?: string[];
  /** The assess answer (spec 2.4) this pass rests on. */
  assessment?: Record<string, unknown>;
  /** The trust gate: the reputation record (spec 2.7) and the grade it judged. */
  reputation?: Record<string, unknown>;
  grade?: string | null;
  /**
   * Assess was given the payment's signer and the pass rests on it (spec 2.4.2: screened, and in
   * wallet mode the same person as the claimed wallet). False: no signer was checked (no payment
   * yet, `payment: false`, an operator token on a rail without a wallet signature, a degraded or
   * anonymous pass). A wallet-mode pass with false says who owns the claimed wallet, not that the
   * caller controls it (spec 5.4): not proof of identity on its own.
   */
  signerChecked: boolean;
  /** Fail-open: the service did not answer, the buyer passed unchecked. */
  degraded?: true;
  infraReason?: InfraReason;
  /** Soft enforcement: the denial that was swallowed (the merchant may log or forward it). */
  denial?: GateDenial;
}

/** The codes a denial may carry (CONTRACT.md's table); the buyer-agent client reads these and no other. */
export const denialCodes = [
  'missing_identity',
  'identity_verification_required',
  'token_expired',
  'invalid_credential',
  'wallet_signer_mismatch',
  'wallet_auth_requires_wallet_signing',
  'wallet_not_trusted',
  'compliance_denied',
  'payment_required',
  'api_error',
  'missing_wallet_address',
] as const;
export type DenialCode = (typeof denialCodes)[number];

export interface AgentInstructions {
  action: string;
  steps: string[];
  user_message: string;
  [field: string]: unknown;
}

/** Spec 7.1's format: every extra field inside `error`. */
export interface DenialBody {
  error: { code: DenialCode; message: string; agent_instructions: AgentInstructions; [field: string]: unknown };
}

export interface GateDenial {
  status: number;
  body: DenialBody;
  headers?: Record<string, string>;
}

export type GateResult = GatePass | GateDenial;

export function isDenial(result: GateResult): result is GateDenial {
  return 'status' in result && 'body' in result;
}

/** Anything that turns a request into a pass or a denial: the identity gate and the trust gate. */
export interface Evaluator {
  evaluate(request: RequestLike, payment?: Payment): Promise<GateResult>;
  /** Wallet capture after a successful payment (fire and forget); the trust gate has none. */
  capture?(pass: GatePass, payment: Payment): void;
  /** Rule 3's fields the adapters add to a JSON 402 answered after a pass; the trust gate (no signer check) has none. */
  identityModeFields?(pass: GatePass): Record<string, unknown>;
}

/** What the gate reports of a service call that went wrong (for the merchant's logs). */
export interface ServiceProblem {
  call: 'assess' | 'sessions' | 'capture' | 'reputation';
  status?: number;
  code?: string;
  detail: string;
}
