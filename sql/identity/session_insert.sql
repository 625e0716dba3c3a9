-- A new verification session, pending until its expiry.
INSERT INTO verification_sessions
  (id, account_id, purpose, context, product_name, poll_secret_hash, status, kyc_provider, attempts, created_at, expires_at)
VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, 0, $8, $9);
