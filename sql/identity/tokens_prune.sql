-- The prune-credentials job (identity/prune-credentials.ts): operator tokens that expired before
-- $1 and that no wallet capture names (a capture counts while its token is not revoked, so those
-- tokens stay as long as their captures).
DELETE FROM operator_tokens
 WHERE expires_at < $1
   AND id NOT IN (SELECT token_id FROM wallet_captures)
RETURNING id, token_hash;
