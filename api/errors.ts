// One error envelope for the whole API (spec 7.1): {error: {code, message, ...extra}}. The map
// from code to HTTP status is exhaustive, so a code cannot be sent with the wrong status.
export const errorStatus = {
  bad_request: 400,
  invalid_request: 400,
  invalid_address: 400,
  invalid_identity: 400,
  invalid_test_address: 400,
  invalid_network: 400,
  invalid_wallet: 400,
  // Wallet claims (not in spec 7.1; docs/decisions.md, "Wallet claims"): the message is not a live
  // challenge of this account (ask for a new one), or the signature is not the wallet's (re-sign).
  invalid_challenge: 400,
  invalid_signature: 400,
  signup_required: 401,
  invalid_api_key: 401,
  unauthorized: 401,
  invalid_credential: 401,
  token_expired: 401,
  payment_required: 402,
  account_cancelled: 403,
  ip_not_allowed: 403,
  not_found: 404,
  unknown_address: 404,
  method_not_allowed: 405,
  kyc_required: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  quota_exceeded: 429,
  internal_error: 500,
  stale_data: 503,
  api_error: 503,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
    /** Fields beside `error` rather than in it: only where the spec spells a body so (4.5's 409). */
    readonly beside: Record<string, unknown> = {},
  ) {
    super(message);
  }

  get status(): number {
    return errorStatus[this.code];
  }

  body(): { error: Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.extra }, ...this.beside };
  }
}
