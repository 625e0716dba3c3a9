-- When the sanctions list was last confirmed current, whether or not it changed: a refresh that
-- finds OFAC's list unchanged (the usual hourly case) records a check, so the list's age for
-- assess's signer check (SANCTIONS_LIST_MAX_AGE_HOURS) is the time since the last good refresh,
-- not since OFAC last changed it. Append-only, one row per successful refresh.
CREATE TABLE sanctions_list_checks (
  checked_at    TIMESTAMP NOT NULL,
  source_sha256 VARCHAR   NOT NULL
);
-- The loads before this version were checks too.
INSERT INTO sanctions_list_checks SELECT loaded_at, source_sha256 FROM sanctions_list_loads;

-- The decision audit trail of POST /v1/assess (identity/assess/audit.ts): one row per live
-- decision, no personal data: the identity is a normalised wallet address or the credential's id
-- (never the token), the policy its hash. Pruned past ASSESSMENT_RETENTION_DAYS.
CREATE TABLE assessments (
  assessed_at      TIMESTAMP NOT NULL,
  request_id       VARCHAR   NOT NULL,
  account_id       VARCHAR   NOT NULL,
  identity_kind    VARCHAR   NOT NULL,  -- wallet | operator_token
  identity         VARCHAR   NOT NULL,  -- wallet: the address (EVM lowercased, Solana verbatim); operator_token: the token's id, or 'unknown'
  operator_id      VARCHAR,             -- the operator it resolved to, when any
  decision         VARCHAR   NOT NULL,  -- allow | deny
  reasons          VARCHAR[] NOT NULL,
  policy_hash      VARCHAR,             -- hex SHA-256 of the policy's canonical JSON; NULL without a policy
  signer_match     VARCHAR,             -- pass | wallet_signer_mismatch | wallet_auth_requires_wallet_signing; NULL without a signer
  signer_sanctions VARCHAR             -- clear | sanctioned | unavailable; NULL without a signer
);

-- The order of wallet captures, beyond their millisecond: which key is a tuple's newest decides
-- what the next capture dedupes against (spec 4.8), also after a restart reloads it. Microseconds
-- of the capture's time plus a counter of the process, so two captures of one millisecond order as
-- they were made. Rows from before: their time.
ALTER TABLE wallet_captures ADD COLUMN seq BIGINT;
UPDATE wallet_captures SET seq = epoch_us(captured_at);
