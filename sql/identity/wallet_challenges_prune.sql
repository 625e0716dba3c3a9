-- The prune-credentials job: wallet claim challenges that expired before $1, used or not (single
-- use and minutes long: an old one can only be refused).
DELETE FROM wallet_challenges WHERE expires_at < $1 RETURNING nonce;
