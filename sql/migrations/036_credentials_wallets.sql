-- Identity, part two: operator credentials and refresh-token families, wallet captures, wallet
-- ownership challenges and claims. Same rules as 001: no keys, unique constraints or indexes;
-- the serialised writer decides uniqueness; secrets are stored as SHA-256 only.

-- Access tokens issued from a refresh-token family (the first by a session poll, the others by
-- exchanges), so that reuse of a spent refresh token can revoke them all (RFC 9700 4.14.2).
ALTER TABLE operator_tokens ADD COLUMN family_id VARCHAR;

CREATE TABLE refresh_tokens (
  id                VARCHAR   NOT NULL,  -- prt id (UUID)
  family_id         VARCHAR   NOT NULL,  -- fam_…: every token rotated from one login
  generation        INTEGER   NOT NULL,  -- 1 for the login's token, +1 per exchange
  operator_id       VARCHAR   NOT NULL,
  account_id        VARCHAR   NOT NULL,  -- the account the login came through
  token_hash        VARCHAR   NOT NULL,  -- hex SHA-256 of the whole prt_… token
  created_at        TIMESTAMP NOT NULL,
  family_expires_at TIMESTAMP NOT NULL,  -- 90 days after the login: absolute, rotation does not extend it
  spent_at          TIMESTAMP,           -- exchanged (single use)
  revoked_at        TIMESTAMP            -- the family was revoked (reuse detected)
);

-- Wallet capture (spec 4.8): one row per capture that changed state (a capture deduplicated by
-- its idempotency key writes nothing). The (token, network, wallet) tuple's transaction count is
-- its number of rows; its first and last sighting are the least and greatest captured_at.
CREATE TABLE wallet_captures (
  token_id        VARCHAR   NOT NULL,  -- the credential the merchant saw (operator_tokens.id)
  operator_id     VARCHAR   NOT NULL,
  account_id      VARCHAR   NOT NULL,  -- the merchant that reported it
  network         VARCHAR   NOT NULL,  -- evm | solana
  wallet          VARCHAR   NOT NULL,  -- EVM lowercased, Solana verbatim
  idempotency_key VARCHAR,             -- at most 200 characters (longer ones truncated)
  captured_at     TIMESTAMP NOT NULL
);

-- One-time challenges an account signs to prove it controls a wallet (EIP-4361 / Sign-In With
-- Solana messages); single use, expiring, bound to the account.
CREATE TABLE wallet_challenges (
  nonce      VARCHAR   NOT NULL,
  account_id VARCHAR   NOT NULL,
  network    VARCHAR   NOT NULL,         -- evm | solana
  wallet     VARCHAR   NOT NULL,
  chain_id   BIGINT,                     -- EVM: the chain named in the message
  message    VARCHAR   NOT NULL,         -- the exact text to sign
  issued_at  TIMESTAMP NOT NULL,
  expires_at TIMESTAMP NOT NULL,
  used_at    TIMESTAMP
);

-- Wallets an account proved it controls. A later claim of the same wallet by another account
-- supersedes an earlier one (the newest claim of a wallet is its owner).
CREATE TABLE wallet_claims (
  account_id VARCHAR   NOT NULL,
  network    VARCHAR   NOT NULL,
  wallet     VARCHAR   NOT NULL,
  method     VARCHAR   NOT NULL,         -- siwe-eoa | siwe-erc1271 | siwe-erc6492 | siws
  chain_id   BIGINT,
  claimed_at TIMESTAMP NOT NULL
);
