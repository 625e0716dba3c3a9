-- The prune-sessions job: sessions nobody completed (pending or failed: no operator, no token)
-- whose expiry is before $1 (SESSION_RETENTION_DAYS ago) are deleted; DuckDB answers with the
-- count. Verified, consumed and flagged sessions stay: tokens and reviews point at them.
DELETE FROM verification_sessions WHERE status IN ('pending', 'failed') AND expires_at < $1;
