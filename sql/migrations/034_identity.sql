-- Identity (identity/): verified operators, verification sessions, operator tokens and the vendor
-- webhooks already applied. Same rules as 001: no keys, unique constraints or indexes; the single
-- serialised writer decides uniqueness and makes each state change a conditional write.
--
-- Nothing here is personal data: an operator is the derived facts of one verification (never a
-- name, street address, date of birth, document number or image), and every secret is a SHA-256.

CREATE TABLE operators (
  id                   VARCHAR   NOT NULL,  -- op_…
  kyc_status           VARCHAR   NOT NULL,  -- verified
  kyc_provider         VARCHAR   NOT NULL,  -- sandbox | stripe
  kyc_verified_at      TIMESTAMP NOT NULL,
  jurisdiction         VARCHAR   NOT NULL,  -- ISO 3166-1 alpha-2 of the identity document's issuer
  age_verified         BOOLEAN   NOT NULL,  -- an age of at least 18 was verified
  age_bracket          VARCHAR,             -- 21+ | 18+ | NULL (under 18)
  operator_type        VARCHAR   NOT NULL,  -- individual
  sanctions_result     VARCHAR   NOT NULL,  -- clear | hit | unavailable (name screening at verification)
  sanctions_checked_at TIMESTAMP,           -- when a list answered (NULL when it was unavailable)
  sanctions_sdn_uid    VARCHAR,             -- the SDN entry a hit matched
  sanctions_score      DOUBLE,              -- its Jaro-Winkler similarity
  created_at           TIMESTAMP NOT NULL
);

CREATE TABLE verification_sessions (
  id               VARCHAR   NOT NULL,  -- sess_…
  account_id       VARCHAR   NOT NULL,  -- the account that created it (the merchant)
  purpose          VARCHAR   NOT NULL,  -- agent: POST /v1/sessions
  context          VARCHAR,
  product_name     VARCHAR,
  poll_secret_hash VARCHAR   NOT NULL,  -- hex SHA-256; the secret is shown once
  status           VARCHAR   NOT NULL,  -- pending | verified | consumed | failed | flagged (expired is read from the clock)
  kyc_provider     VARCHAR   NOT NULL,
  provider_ref     VARCHAR,             -- the vendor's session (Stripe vs_…)
  attempts         INTEGER   NOT NULL,  -- verifications started on the page
  failure_code     VARCHAR,             -- why the last attempt failed (a vendor code, never personal data)
  operator_id      VARCHAR,
  created_at       TIMESTAMP NOT NULL,
  expires_at       TIMESTAMP NOT NULL,  -- bounds pending and failed
  completed_at     TIMESTAMP,           -- verified (or cleared by review) at
  consumed_at      TIMESTAMP,           -- the poll that delivered the token
  reviewed_at      TIMESTAMP,
  review_decision  VARCHAR              -- cleared | confirmed (flagged sessions)
);

CREATE TABLE operator_tokens (
  id           VARCHAR   NOT NULL,  -- UUID
  operator_id  VARCHAR   NOT NULL,
  account_id   VARCHAR   NOT NULL,  -- the account it was issued through
  source       VARCHAR   NOT NULL,  -- session (delivered by a poll)
  session_id   VARCHAR,
  token_hash   VARCHAR   NOT NULL,  -- hex SHA-256 of the whole opc_… token
  prefix       VARCHAR   NOT NULL,  -- opc_xxxx, for listings
  label        VARCHAR,
  created_at   TIMESTAMP NOT NULL,
  expires_at   TIMESTAMP NOT NULL,
  revoked_at   TIMESTAMP,
  last_used_at TIMESTAMP
);

-- Vendor webhook deliveries already applied, so a redelivery or a replay changes nothing.
CREATE TABLE kyc_webhook_events (
  provider    VARCHAR   NOT NULL,
  event_id    VARCHAR   NOT NULL,
  received_at TIMESTAMP NOT NULL
);
