-- The prune-credentials job (identity/prune-credentials.ts): operator tokens that expired before
-- $1, unless a wallet capture names one that is not revoked (a capture counts while its token is
-- not revoked, so such a token stays as long as its captures; a missing one reads as revoked).
DELETE FROM operator_tokens
 WHERE expires_at < $1
   AND (revoked_at IS NOT NULL OR id NOT IN (SELECT token_id FROM wallet_captures))
RETURNING id, token_hash;
