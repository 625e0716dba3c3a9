-- The prune-credentials job: refresh tokens of families that expired before $1 (a family lives
-- 90 days from its login, whatever its rotations: nothing of it can be exchanged any more).
DELETE FROM refresh_tokens WHERE family_expires_at < $1 RETURNING token_hash;
