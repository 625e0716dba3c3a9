-- Enterprise extras (spec section 8): IP allowlists per API key.
--
-- Append-only history: every `reputation accounts allowlist` writes one row with the key's whole
-- new list; the row with the highest version per key_id is in force, and an empty list means the
-- key has no allowlist (any address may use it). The writer computes version = previous + 1
-- inside its transaction, so there is no UNIQUE constraint (see 001_foundation.sql).
--
-- Signed responses need no table: the server's Ed25519 key pair lives in DATA_DIR
-- (signing-key.pem, mode 0600) and only the public key is ever published.

CREATE TABLE api_key_ip_allowlists (
  key_id   VARCHAR   NOT NULL,   -- api_keys.id
  version  INTEGER   NOT NULL,   -- 1, 2, ... per key; the highest is in force
  cidrs    VARCHAR[] NOT NULL,   -- normalised networks, e.g. 203.0.113.0/24, 2001:db8::/32; [] = cleared
  set_at   TIMESTAMP NOT NULL
);
